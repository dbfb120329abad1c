import type { CompileResult } from './compile.js';
import type { IngestResult } from './ingest.js';

/**
 * The answer to an ingested batch, as POST /v1/episodes and a connector's batch both give it:
 * each item's outcome (and, with `compile: 'wait'`, each claim's decision), the counts, the
 * documents' statements that give no fact (when there are any) and the compiles waited for.
 */
export type IngestAnswer = Pick<IngestResult, 'items' | 'created' | 'duplicates' | 'erased' | 'redacted' | 'refused'> & {
  statements?: Record<string, number>;
  compiled?: CompileResult[];
};

export function ingestAnswer(result: IngestResult & { compiled?: CompileResult[] }): IngestAnswer {
  return {
    items: result.items,
    created: result.created,
    duplicates: result.duplicates,
    erased: result.erased,
    redacted: result.redacted,
    refused: result.refused,
    ...(Object.keys(result.statements).length > 0 ? { statements: result.statements } : {}),
    ...(result.compiled ? { compiled: result.compiled } : {}),
  };
}
