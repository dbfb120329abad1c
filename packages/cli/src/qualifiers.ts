/** A fact key's qualifiers as every command prints them after the predicate: ` {env: staging}`, or nothing. */
export function qualifierText(q: Record<string, string>): string {
  const entries = Object.entries(q);
  return entries.length === 0 ? '' : ` {${entries.map(([k, v]) => `${k}: ${v}`).join(', ')}}`;
}
