import type { Principal, Runtime } from '@canon/runtime';
import { everyPage } from '@canon/core/pages';
import type { CanonPort } from './port.js';

/**
 * The port over a runtime in this process, every call made as the key's principal — exactly
 * what the HTTP routes do, so a reader key cannot write here either. `close` is the caller's
 * (whoever started the runtime stops it).
 */
export function runtimePort(runtime: Runtime, principal: Principal, close: () => Promise<void> = async () => undefined): CanonPort {
  return {
    mode: 'local',
    async ingestAndCompile(items) {
      const result = await runtime.ingest(principal, items, { compile: 'wait' });
      return { items: result.items, compiled: result.compiled ?? [] };
    },
    subjects: () => runtime.subjects(principal),
    memories: (subject, asOf) => everyPage('memories', (after) => runtime.memories(principal, subject, { as_of: asOf, limit: 1000, after })),
    memory: (id, asOf) => runtime.memory(principal, id, { as_of: asOf }),
    // In process, read the subject's committed episodes whole: inspection is a snapshot, not a
    // cursor, and need not wait for unrelated transactions to end.
    episodes: async (subject, after) => (after ? { episodes: [], next: null } : { episodes: await runtime.subjectEpisodes(principal, subject), next: null }),
    conflicts: (subject) => runtime.conflicts(principal, { subject, limit: 1000 }),
    search: (q, subject, limit) => runtime.search(principal, { q, subject, limit }),
    context: (request) => runtime.context(principal, request),
    link: (input) => runtime.link(principal, input),
    compile: (request) => runtime.compile(principal, request),
    job: (id) => runtime.job(principal, id),
    close,
  };
}
