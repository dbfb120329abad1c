/** `[owner, digest]` pairs grouped by owner: a subject's personal memories' digests. */
export function digestsByOwner(pairs: ReadonlyArray<readonly [string, string]>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [owner, digest] of pairs) {
    const list = out.get(owner);
    if (list) list.push(digest);
    else out.set(owner, [digest]);
  }
  return out;
}
