/**
 * Reads a paged listing whole: each page's `next` is passed back as `after` until it is null.
 * For shells that print or hand over a listing entire (a subject's memories in `canon memories`,
 * MCP `recall`); the server answers a page at a time so no one request grows with the subject.
 */
export async function everyPage<K extends string, P extends { next: string | null } & { [k in K]: unknown[] }>(
  items: K,
  page: (after: string | undefined) => Promise<P>,
): Promise<P> {
  const first = await page(undefined);
  const all = [...first[items]];
  let next = first.next;
  while (next !== null) {
    const more = await page(next);
    // A cursor that does not move would loop forever: refuse it rather than trust it.
    if (more.next !== null && more.next <= next) throw new Error(`a page's next cursor did not advance past ${next}`);
    all.push(...more[items]);
    next = more.next;
  }
  return { ...first, [items]: all, next: null };
}
