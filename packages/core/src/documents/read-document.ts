import { canonicalJson } from '../hash.js';
import { normalizeText, normalizeValue, valueKey } from '../normalize.js';
import { documentFormat } from './format.js';
import { dockerfileFacts, goModFacts, pyprojectDependencies, requirementsFacts } from './manifests.js';
import { markdownFacts } from './markdown.js';
import { nestsTooDeep } from './nesting.js';
import { MAX_DOCUMENT_FACTS, MAX_KEY_CHARS, type DocumentFact, type DocumentFormat, type DocumentReading } from './statement.js';
import { flatten, packageJsonFacts, parseDotenv, parseIni, parseJson, parseTomlText, parseYaml, type Parsed } from './structured.js';

/**
 * Reads one version of one document (a scanned file) into facts, by its format (design §3).
 * Pure and deterministic: the same path and text give the same facts in the same order.
 */
export function readDocument(path: string | undefined, text: string): DocumentReading {
  const format = documentFormat(path, text);
  const dropped: Record<string, number> = {};
  const count = (reason: string, n = 1) => {
    if (n > 0) dropped[reason] = (dropped[reason] ?? 0) + n;
  };
  // Nested past what a parser is given: stored and searchable, read for no fact.
  if (nestsTooDeep(format, text)) {
    count('too_deep');
    return { format, facts: [], dropped };
  }
  const raw = readFacts(format, text);
  if (raw === null) {
    count('unparsed');
    return { format, facts: [], dropped };
  }
  // An empty predicate is no fact key at all; a very long one is no key a person reads.
  const named = raw.filter((f) => normalizeText(f.predicate) !== '');
  const sized = named.filter((f) => f.predicate.length <= MAX_KEY_CHARS && Object.values(f.qualifiers).every((v) => v.length <= MAX_KEY_CHARS));
  count('too_long', raw.length - sized.length);
  const { facts, ambiguous } = settle(sized);
  count('ambiguous', ambiguous);
  const limit = format === 'markdown' || format === 'text' ? MAX_DOCUMENT_FACTS.markdown : MAX_DOCUMENT_FACTS.structured;
  if (facts.length > limit) {
    count('too_many', facts.length);
    return { format, facts: [], dropped };
  }
  return { format, facts, dropped };
}

/**
 * factsOf, with a parser's stack overflow read as a file it cannot parse. `nestsTooDeep` keeps every
 * shape known to recurse that far from the parsers, and this is only the last resort for one it
 * does not know: a compile that goes on is better than one that fails on this episode every time.
 */
function readFacts(format: DocumentFormat, text: string): DocumentFact[] | null {
  try {
    return factsOf(format, text);
  } catch (err) {
    if (err instanceof RangeError) return null;
    throw err;
  }
}

function factsOf(format: DocumentFormat, text: string): DocumentFact[] | null {
  const walk = (parsed: Parsed) => (parsed.ok ? flatten(parsed.value) : null);
  switch (format) {
    case 'json':
    case 'jsonc':
      return walk(parseJson(text));
    case 'package.json': {
      const parsed = parseJson(text);
      return parsed.ok ? packageJsonFacts(parsed.value) : null;
    }
    case 'yaml':
      return walk(parseYaml(text));
    case 'toml':
      return walk(parseTomlText(text));
    case 'pyproject.toml': {
      const parsed = parseTomlText(text);
      if (!parsed.ok) return null;
      const deps = pyprojectDependencies(parsed.value);
      return [...flatten(parsed.value).filter((f) => !deps.replaced.has(f.predicate)), ...deps.facts];
    }
    case 'dotenv':
      return walk(parseDotenv(text));
    case 'ini':
      return walk(parseIni(text));
    case 'requirements.txt':
      return requirementsFacts(text);
    case 'go.mod':
      return goModFacts(text);
    case 'dockerfile':
      return dockerfileFacts(text);
    case 'markdown':
      return markdownFacts(text);
    case 'text':
      return markdownFacts(text, { plain: true });
    case 'lockfile':
    case 'code':
    case 'other':
      return [];
  }
}

/**
 * One version of a document never disputes itself (design §3). Statements landing on one key
 * (predicate and qualifiers, as the fact key will normalize them) with one value are one fact;
 * with different values none of them is a fact — the document does not say which — and they are
 * counted as `ambiguous`. The first statement of a kept key keeps its place in the order.
 */
export function settle(facts: readonly DocumentFact[]): { facts: DocumentFact[]; ambiguous: number } {
  const groups = new Map<string, { first: DocumentFact; values: Set<string>; n: number }>();
  for (const f of facts) {
    const key = keyOf(f);
    const value = valueKey(normalizeValue(f.value));
    const g = groups.get(key);
    if (g) {
      g.values.add(value);
      g.n += 1;
    } else groups.set(key, { first: f, values: new Set([value]), n: 1 });
  }
  const kept: DocumentFact[] = [];
  let ambiguous = 0;
  for (const g of groups.values()) {
    if (g.values.size === 1) kept.push(g.first);
    else ambiguous += g.n;
  }
  return { facts: kept, ambiguous };
}

function keyOf(f: DocumentFact): string {
  const q = Object.entries(f.qualifiers)
    .map(([k, v]) => [normalizeText(k), normalizeText(v)] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return canonicalJson([normalizeText(f.predicate), q]);
}
