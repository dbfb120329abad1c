import type { Answer } from '../system.js';
import type { FactTruth } from '../workload.js';
import { retrieve, type TextRecord } from './text.js';

/**
 * What a text memory puts in front of an agent asking about a fact: the records lexical
 * retrieval finds for "predicate + qualifier values" in the subject, read as the claims they
 * state (a careful reader: a record about another fact, e.g. production when asking about
 * staging, is set aside). Text memories never flag a disagreement.
 */
export function answerFromRecords(records: readonly TextRecord[], fact: FactTruth): Answer {
  const query = [fact.predicate, ...Object.values(fact.qualifiers)].join(' ');
  const found = retrieve(records, fact.subject, query).filter((r) => r.fact === fact.id && !r.retraction && r.value !== undefined);
  return { values: found.map((r) => ({ value: r.value!, conditions: r.conditions, fact: r.fact })), flagged: false };
}
