/**
 * The state digests of a subject's personal memories, by owner: what a compile's answer subtracts
 * for a key of another user. Pure helpers of `personalDigestsOfSubject` and `compileStart`.
 */

/** `[owner, digest]` pairs grouped by owner. */
export function digestsByOwner(pairs: ReadonlyArray<readonly [string, string]>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [owner, digest] of pairs) {
    const list = out.get(owner);
    if (list) list.push(digest);
    else out.set(owner, [digest]);
  }
  return out;
}

/**
 * The SQL of a subject's `[owner, digest]` pairs as one JSON array, over two SQL expressions (the
 * workspace and the subject), found through `memories_personal_idx`: nothing to read for most
 * subjects.
 */
export function personalDigestsJson(workspace: string, subject: string): string {
  return `array_to_json(ARRAY(SELECT json_build_array(owner, digest) FROM memories
            WHERE workspace_id = ${workspace} AND subject = ${subject} AND scope = 'personal' ORDER BY owner, id))`;
}
