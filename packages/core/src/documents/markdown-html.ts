/**
 * The HTML a Markdown file embeds that still states structure: `<h2>` headings and tables with a
 * header row. Read with patterns, not a DOM (the core has no parser for HTML): tags are dropped,
 * entities decoded, whitespace collapsed.
 */
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', '#39': "'" };

function plain(html: string): string {
  return html
    .replace(/<br\s*\/?>/gi, ' ')
    .replace(/<[^>]*>/g, '')
    .replace(/&(#?\w+);/g, (m: string, name: string) => ENTITIES[name] ?? m)
    .replace(/\s+/g, ' ')
    .trim();
}

/** An HTML block that is one heading (`<h1 align="center">Title</h1>`). */
export function htmlHeading(html: string): { depth: number; text: string } | null {
  const m = /^\s*<h([1-6])\b[^>]*>([\s\S]*?)<\/h\1>\s*$/i.exec(html);
  if (!m) return null;
  const text = plain(m[2]!);
  return text ? { depth: Number(m[1]), text } : null;
}

/**
 * The tables of an HTML block whose first row is a header (`<th>` cells, or a `<thead>`): a
 * layout table of badges has none and states nothing.
 */
export function htmlTables(html: string): Array<{ header: string[]; rows: string[][] }> {
  const tables: Array<{ header: string[]; rows: string[][] }> = [];
  for (const t of html.matchAll(/<table\b[^>]*>([\s\S]*?)<\/table>/gi)) {
    const rows = [...t[1]!.matchAll(/<tr\b[^>]*>([\s\S]*?)<\/tr>/gi)].map((r) => r[1]!);
    const first = rows[0];
    if (!first || !/<th\b/i.test(first)) continue;
    const cells = (row: string) => [...row.matchAll(/<t([hd])\b[^>]*>([\s\S]*?)<\/t\1>/gi)].map((c) => plain(c[2]!));
    tables.push({ header: cells(first), rows: rows.slice(1).map(cells) });
  }
  return tables;
}
