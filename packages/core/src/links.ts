import { z } from 'zod';
import type { Claim, LineageVersion } from './claim.js';
import type { Episode } from './episode.js';
import { FactKey, factKeyString, memoryId } from './fact-key.js';
import { compareStrings } from './normalize.js';
import { predicateWords } from './candidate-reading.js';
import { NOTE_PREDICATE } from './extract.js';
import { compareInstants } from './order.js';
import { ROLE_STANDING } from './roles.js';
import { standingFor } from './standing.js';

/**
 * Links (design §1, law 3): the only way two fact keys become one memory. A link is an episode
 * of kind `link` whose body names the two fact keys — keys, not memory ids, so a rebuild from
 * the log alone reproduces it — and says whether they are one fact (`same: true`) or distinct
 * (`same: false`, which also silences their candidate).
 */
export const LINK_KIND = 'link';

/** The standing a link needs to be in force; below it a link is a proposal, shown and not applied. */
export const LINK_MIN_STANDING = ROLE_STANDING.member;

export const LinkBody = z.object({
  link: z.object({
    keys: z.tuple([FactKey, FactKey]),
    same: z.boolean(),
    reason: z.string().optional(),
  }),
});
export type LinkBody = z.infer<typeof LinkBody>;

export interface LinkStatement {
  /** The two fact key strings, the smaller first. */
  a: string;
  b: string;
  a_key: FactKey;
  b_key: FactKey;
  same: boolean;
  standing: number;
  occurred_at: string;
  sequence: number | null;
  source: string;
  idempotency_key: string;
  reason: string;
}

type LinkSource = Pick<Episode, 'body' | 'subject' | 'workspace_id' | 'scope' | 'owner'>;

/** An episode's link body read, with its two keys and their strings, or why it states no link. */
function readLink(episode: LinkSource): { keys: [FactKey, FactKey]; strings: [string, string]; link: LinkBody['link'] } | string {
  const parsed = LinkBody.safeParse(episode.body);
  if (!parsed.success) return 'a link\'s body is {"link": {"keys": [<fact key>, <fact key>], "same": true | false, "reason"?}} (POST /v1/links writes it from two memory ids)';
  // A key is read in the episode's own workspace, as a claim's is: a log exported from one
  // workspace and imported into another links there what it linked here (read as written, its
  // links joined nothing, and what they had settled came undone). So a link can never name a
  // memory of another workspace either.
  const keys = parsed.data.link.keys.map((k) => (k.workspace_id === episode.workspace_id ? k : { ...k, workspace_id: episode.workspace_id })) as [FactKey, FactKey];
  // Only keys of the episode's own subject and scope: a link never reaches into a memory its
  // author could not see or another subject's compile would not know to refold.
  for (const k of keys) {
    if (k.subject !== episode.subject) return `a link joins keys of its own subject (${JSON.stringify(episode.subject)}), not of ${JSON.stringify(k.subject)}`;
    if (k.scope !== episode.scope || (k.owner ?? null) !== (episode.scope === 'personal' ? episode.owner : null)) return 'a link joins keys of its own scope (and, personal, its own user)';
  }
  const strings: [string, string] = [factKeyString(keys[0]), factKeyString(keys[1])];
  if (strings[0] === strings[1]) return 'a link joins two different keys, not one key with itself';
  return { keys, strings, link: parsed.data.link };
}

/**
 * Why an episode of kind `link` would state no link (its body, keys of another subject or
 * scope, one key twice), or null: ingest refuses such an episode rather than store one that does
 * nothing.
 */
export function linkFault(episode: LinkSource): string | null {
  const read = readLink(episode);
  return typeof read === 'string' ? read : null;
}

/**
 * A writer's link naming a key of another workspace, or null. The compiler reads every key in the
 * episode's own workspace (an imported log links there what it linked where it came from), so such
 * a key is never followed; a writer who sends one has the wrong key, and the log should not hold it.
 */
export function linkWorkspaceFault(episode: LinkSource): string | null {
  const parsed = LinkBody.safeParse(episode.body);
  if (!parsed.success) return null;
  const other = parsed.data.link.keys.find((k) => k.workspace_id !== episode.workspace_id);
  return other ? `a link joins keys of its own workspace, not of ${JSON.stringify(other.workspace_id)}` : null;
}

/** The link an episode states, or null: not a link, or keys of another subject or scope. */
export function linkOf(episode: Pick<Episode, 'kind' | 'body' | 'subject' | 'workspace_id' | 'scope' | 'owner' | 'actor' | 'occurred_at' | 'sequence' | 'source' | 'idempotency_key'>): LinkStatement | null {
  if (episode.kind !== LINK_KIND) return null;
  const read = readLink(episode);
  if (typeof read === 'string') return null;
  const [k1, k2] = read.keys;
  const [s1, s2] = read.strings;
  const [a, b, a_key, b_key] = compareStrings(s1, s2) < 0 ? [s1, s2, k1, k2] : [s2, s1, k2, k1];
  return {
    a,
    b,
    a_key,
    b_key,
    same: read.link.same,
    standing: standingFor(episode.actor.role),
    occurred_at: episode.occurred_at,
    sequence: episode.sequence,
    source: episode.source,
    idempotency_key: episode.idempotency_key,
    reason: read.link.reason ?? '',
  };
}

/** Later wins among equal standing: time, then sequence, then source and key (never arrival). */
function compareLinks(x: LinkStatement, y: LinkStatement): number {
  return (
    x.standing - y.standing ||
    compareInstants(x.occurred_at, y.occurred_at) ||
    (x.sequence ?? -1) - (y.sequence ?? -1) ||
    compareStrings(x.source, y.source) ||
    compareStrings(x.idempotency_key, y.idempotency_key)
  );
}

/**
 * Whether a key's template negates its value ("we no longer allow deploys on {weekday}"), read
 * as candidates read it (`predicateWords`). A note's key holds no template.
 */
export function negatedKey(key: FactKey): boolean {
  return key.predicate !== NOTE_PREDICATE && predicateWords(key.predicate).negated;
}

export interface LinkState {
  /** Fact key string → the canonical key string of its group (only keys in a group of two or more). */
  canonical: Map<string, string>;
  /** Canonical key string → every key of its group, sorted (the canonical one first). */
  groups: Map<string, string[]>;
  /** Pairs (`a\u0000b`) whose statement in force says they are distinct. */
  distinct: Set<string>;
  /** Statements below the standing a link needs, not overridden by one in force: proposals. */
  proposed: LinkStatement[];
  /** The fact key of every key string named by a statement. */
  keys: Map<string, FactKey>;
}

export const pairId = (a: string, b: string) => (compareStrings(a, b) < 0 ? `${a}\u0000${b}` : `${b}\u0000${a}`);

/**
 * The links in force, a set function of the statements. Per pair, standing first, then the
 * latest statement wins (so unlinking is a later `same: false`, and a member cannot undo an
 * owner's link). Pairs in force with `same: true` are joined transitively (union-find); a group's
 * canonical key is its smallest key string that does not negate (its smallest key when all do),
 * so its memory id is stable whatever the order of the links. `same: false` separates only its
 * own pair: it does not split a group that other links join.
 */
export function linkState(
  statements: readonly LinkStatement[],
  minStanding: number = LINK_MIN_STANDING,
  /**
   * The highest standing among a key's claims. A statement below it on either key is a proposal:
   * joined, the keys fold as one and their values decide between them, so a member's link of an
   * owner's two facts ended one of them — a change no claim of that member could make (design §4).
   */
  topStanding: (key: FactKey) => number = () => 0,
): LinkState {
  const winner = new Map<string, LinkStatement>();
  const bestProposal = new Map<string, LinkStatement>();
  const keys = new Map<string, FactKey>();
  for (const s of statements) {
    keys.set(s.a, s.a_key);
    keys.set(s.b, s.b_key);
    const id = pairId(s.a, s.b);
    const target = s.standing >= Math.max(minStanding, topStanding(s.a_key), topStanding(s.b_key)) ? winner : bestProposal;
    const held = target.get(id);
    if (!held || compareLinks(held, s) < 0) target.set(id, s);
  }
  const parent = new Map<string, string>();
  const find = (k: string): string => {
    let r = k;
    while (parent.has(r) && parent.get(r) !== r) r = parent.get(r)!;
    return r;
  };
  const distinct = new Set<string>();
  for (const [id, s] of [...winner].sort(([x], [y]) => compareStrings(x, y))) {
    if (!s.same) {
      distinct.add(id);
      continue;
    }
    const ra = find(s.a);
    const rb = find(s.b);
    if (ra === rb) continue;
    // The smaller root stays the root, so the canonical key is the group's smallest key.
    if (compareStrings(ra, rb) < 0) parent.set(rb, ra);
    else parent.set(ra, rb);
    if (!parent.has(ra)) parent.set(ra, ra);
    if (!parent.has(rb)) parent.set(rb, rb);
  }
  const byRoot = new Map<string, string[]>();
  for (const k of parent.keys()) {
    const root = find(k);
    const list = byRoot.get(root);
    if (list) list.push(k);
    else byRoot.set(root, [k]);
  }
  const canonical = new Map<string, string>();
  const groups = new Map<string, string[]>();
  for (const list of byRoot.values()) {
    list.sort(compareStrings);
    // A statement linked with its negation ("allowed on Fridays" / "no longer allowed on Fridays")
    // is keyed by the statement: the memory holds the value, and the negation ends it
    // (`onCanonicalKey`). Keyed by the negation, the value read as its opposite.
    const head = list.find((k) => !negatedKey(keys.get(k)!)) ?? list[0]!;
    groups.set(head, [head, ...list.filter((k) => k !== head)]);
    for (const k of list) canonical.set(k, head);
  }
  const proposed = [...bestProposal]
    .filter(([id]) => !winner.has(id))
    .map(([, s]) => s)
    .sort((x, y) => compareStrings(pairId(x.a, x.b), pairId(y.a, y.b)));
  return { canonical, groups, distinct, proposed, keys };
}

/**
 * The claims and lineage versions of a linked group, restated on the group's canonical key so
 * one fold decides across them with the usual table: a later Thursday from the same author
 * changes Tuesday, one of equal standing disputes it. Claim refs (source, key, index) are kept,
 * so evidence and decisions still name the episodes that said it.
 */
export function onCanonicalKey(
  claims: readonly Claim[],
  versions: readonly LineageVersion[],
  canonicalKey: FactKey,
  members: readonly string[],
): { claims: Claim[]; versions: LineageVersion[] } {
  const key = factKeyString(canonicalKey);
  const id = memoryId(canonicalKey.workspace_id, canonicalKey);
  const inGroup = new Set(members);
  const positive = !negatedKey(canonicalKey);
  // Read once per key of the group, not once per claim: a hot key linked to another brings
  // thousands of claims of one or two templates.
  const negated = new Map<string, boolean>();
  const negates = (c: Claim) => {
    let n = negated.get(c.key);
    if (n === undefined) negated.set(c.key, (n = negatedKey(c.fact_key)));
    return n;
  };
  return {
    claims: claims.map((c) => {
      if (c.key === key) return c;
      // A negation's value is the one it says is no longer so: on the statement's key, it retracts
      // that value (by the decision table: it ends it, or is overruled below the value's standing).
      const ends = c.op === 'assert' && positive && negates(c);
      return { ...c, fact_key: canonicalKey, key, memory_id: id, predicate: canonicalKey.predicate, ...(ends ? { op: 'retract' as const } : {}) };
    }),
    versions: versions.map((v) => {
      if (!v.keys.some((k) => inGroup.has(k))) return v;
      return { ...v, keys: [...new Set(v.keys.map((k) => (inGroup.has(k) ? key : k)))].sort(compareStrings) };
    }),
  };
}
