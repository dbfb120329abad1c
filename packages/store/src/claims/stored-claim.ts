import { parseFactKey, type Claim } from '@canon/core';
import { storedForm } from '../stored-form.js';

/** The members of a claim its row keeps as columns; the `claim` column's JSON leaves them out. */
export interface ClaimColumns {
  workspace_id: string;
  episode_id: string;
  idx: number;
  subject: string;
  memory_id: string;
  lineage: string;
}

type StoredObject = Omit<Claim, 'workspace_id' | 'episode_id' | 'index' | 'subject' | 'memory_id' | 'lineage'>;

/**
 * The members a positional claim holds, in order, after its form tag: every member the columns do
 * not keep, but `fact_key` and `predicate`, which its `key` says (`parseFactKey`). A claim's member
 * names were half of its text, and its fact key said its key a second time: a first compile of
 * 100,000 episodes sent 96 MB of claims to PostgreSQL, which lexed them, wrote them and read them
 * back; positional, each is about 40% of that. SQL reads a member at its place (`CLAIM_AT`)
 * beside its name, for rows stored in the object form: `coalesce(claim->>'key', claim->>9)`.
 */
const POSITIONAL = [
  'source',
  'idempotency_key',
  'snapshot',
  'kind',
  'occurred_at',
  'sequence',
  'ingested_at',
  'source_ref',
  'key',
  'op',
  'value',
  'text',
  'conditions',
  'correction',
  'settles',
  'effective_from',
  'effective_explicit',
  'standing',
  'role',
  'user',
  'author',
  'origin',
  'cues',
  'extractor_version',
] as const satisfies ReadonlyArray<keyof Claim>;

/** Where each member stands in a positional claim, for SQL that reads one (`claim->>${CLAIM_AT.key}`). */
export const CLAIM_AT = Object.freeze(Object.fromEntries(POSITIONAL.map((name, i) => [name, i + 1])) as Record<(typeof POSITIONAL)[number], number>);

/** The first element of a positional claim: its form, so another can follow without a guess. */
const POSITIONAL_FORM = 2;

/** A claim's members in the order extraction makes them, which a claim read back keeps. */
const MEMBER_ORDER = [
  'workspace_id',
  'episode_id',
  'index',
  'source',
  'idempotency_key',
  'lineage',
  'snapshot',
  'subject',
  'kind',
  'occurred_at',
  'sequence',
  'ingested_at',
  'source_ref',
  'fact_key',
  'key',
  'memory_id',
  'predicate',
  ...POSITIONAL.slice(POSITIONAL.indexOf('op')),
].join('\u0000');

// The JSON of the fact key each key string gives back, per key: a compile's claims share a few
// thousand keys, each checked once.
const parsedJson = new Map<string, string>();
const PARSED_KEPT = 10_000;

/**
 * Whether the claim is exactly what its positional form gives back: its members in extraction's
 * order, none undefined (an array holds null where an object drops a member), and its fact key
 * the one its key string parses to, member for member.
 */
function positional(claim: Claim): boolean {
  if (Object.keys(claim).join('\u0000') !== MEMBER_ORDER) return false;
  for (const name of POSITIONAL) if (claim[name] === undefined) return false;
  if (claim.predicate !== claim.fact_key.predicate) return false;
  let expected = parsedJson.get(claim.key);
  if (expected === undefined) {
    try {
      expected = JSON.stringify(parseFactKey(claim.key));
    } catch {
      return false;
    }
    if (parsedJson.size >= PARSED_KEPT) parsedJson.clear();
    parsedJson.set(claim.key, expected);
  }
  return JSON.stringify(claim.fact_key) === expected;
}

/**
 * What a claim's `claim` column holds: the claim without the members its row keeps as columns.
 * They were a third of every claim's text (the workspace and subject twice over, the episode's
 * id), which PostgreSQL lexed and wrote and a compile read back. A claim as extraction makes it
 * is stored positionally (`POSITIONAL`); any other, as an object of its members.
 */
export function storedClaim(claim: Claim): StoredObject | unknown[] {
  if (positional(claim)) {
    const out: unknown[] = [POSITIONAL_FORM];
    for (const name of POSITIONAL) out.push(claim[name]);
    return out;
  }
  const { workspace_id: _w, episode_id: _e, index: _i, subject: _s, memory_id: _m, lineage: _l, ...rest } = claim;
  return rest;
}

/**
 * A claim from its row: the columns, then what the JSON holds. Rows written before the JSON left
 * the columns out hold them both places and give the same claim, members in the same order, and
 * so does a positional row.
 */
export function claimOfRow(columns: ClaimColumns, stored: object): Claim {
  if (Array.isArray(stored)) return claimOfPositional(columns, stored);
  return {
    workspace_id: columns.workspace_id,
    episode_id: columns.episode_id,
    index: columns.idx,
    subject: columns.subject,
    memory_id: columns.memory_id,
    lineage: columns.lineage,
    ...stored,
  } as Claim;
}

function claimOfPositional(columns: ClaimColumns, s: readonly unknown[]): Claim {
  if (s[0] !== POSITIONAL_FORM) throw new Error(`a claim of ${columns.episode_id} is stored in form ${String(s[0])}, which this version does not read`);
  const key = s[9] as string;
  const fact_key = parseFactKey(key);
  // The members in the order an object row gives them (`claimOfRow`: the columns, then the rest
  // in extraction's order), so a subject whose rows hold both forms folds claims of one shape.
  return {
    workspace_id: columns.workspace_id,
    episode_id: columns.episode_id,
    index: columns.idx,
    subject: columns.subject,
    memory_id: columns.memory_id,
    lineage: columns.lineage,
    source: s[1] as string,
    idempotency_key: s[2] as string,
    snapshot: s[3] as boolean,
    kind: s[4] as string,
    occurred_at: s[5] as string,
    sequence: s[6] as number | null,
    ingested_at: s[7] as string,
    source_ref: s[8] as string | null,
    fact_key,
    key,
    predicate: fact_key.predicate,
    op: s[10] as Claim['op'],
    value: s[11] as Claim['value'],
    text: s[12] as string,
    conditions: s[13] as string[],
    correction: s[14] as boolean,
    settles: s[15] as Claim['settles'],
    effective_from: s[16] as string,
    effective_explicit: s[17] as boolean,
    standing: s[18] as number,
    role: s[19] as Claim['role'],
    user: s[20] as string | null,
    author: s[21] as string | null,
    origin: s[22] as Claim['origin'],
    cues: s[23] as string[],
    extractor_version: s[24] as string,
  };
}

/**
 * A claim as its row would give it back, without the round trip: what a compile folds of the claims
 * it has just written, so that it folds the same whichever way they came (the stored form as JSON
 * gives it back, `storedForm`, then `claimOfRow`).
 */
export function claimAsStored(claim: Claim): Claim {
  return claimOfRow(
    { workspace_id: claim.workspace_id, episode_id: claim.episode_id, idx: claim.index, subject: claim.subject, memory_id: claim.memory_id, lineage: claim.lineage },
    storedForm(storedClaim(claim)) as object,
  );
}

/** The columns a claim's row is read with, for `claimOfRow`. */
export const CLAIM_COLUMNS = 'workspace_id, episode_id, idx, subject, memory_id, lineage, claim';
