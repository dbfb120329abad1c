import v8 from 'node:v8';

/**
 * The V8 settings a Canon process runs with (`canon start` and every other command set them
 * before they load anything else; a program embedding the runtime may call this too, first).
 *
 * `--no-allocation-site-pretenuring`: V8 watches where objects are allocated, and when most of
 * one site's objects outlive a young-generation collection it allocates that site's objects in
 * the old generation from then on. A request builds its answer in arrays and objects that live
 * exactly as long as the request; a site tenured once (by a large page, a long compile) then puts
 * each request's containers in the old generation, where they stay after the request until a full
 * collection, and every young object they point to is kept alive by them through each
 * young-generation collection and copied into the old generation too. In the recall benchmark
 * (a page of 100 memories with candidates, 300 reads in a row) that made a third of each
 * collection's young objects survive it: every seventh read waited 8–15 ms for the collector.
 * Without it the same reads' collections copy almost nothing: `bench/recall-candidates.ts` on
 * Node 20, p95 in process 10.7 → 5.5 ms, over HTTP 20.2 → 13.5 ms. A first compile of 100k
 * episodes, the 10,000-way dispute and the ingest benchmark measured within their noise either way.
 */
export const V8_FLAGS = ['--no-allocation-site-pretenuring'] as const;

/** Sets `V8_FLAGS` in this process (again is harmless). Takes effect for the collections that follow. */
export function applyV8Flags(): void {
  for (const flag of V8_FLAGS) v8.setFlagsFromString(flag);
}
