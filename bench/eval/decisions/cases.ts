import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { readJsonl } from '../jsonl.js';

/**
 * The write-side decision cases (bench/eval/decisions/README.md): a prior state, one new episode,
 * and what a careful person expects after it. The files are data; this module only reads them.
 */
const Role = z.enum(['owner', 'maintainer', 'member', 'connector', 'agent']);
export type CaseRole = z.infer<typeof Role>;

const Value = z.union([z.string().min(1), z.number(), z.boolean()]);
export type CaseValue = z.infer<typeof Value>;

const Qualifiers = z.record(z.string().min(1), z.string().min(1));

const Statement = z.strictObject({
  predicate: z.string().min(1),
  qualifiers: Qualifiers.optional(),
  value: Value,
  /** The caller's own flags; they win over the text. */
  correction: z.boolean().optional(),
  effective_from: z.iso.datetime({ offset: true }).optional(),
});
export type Statement = z.infer<typeof Statement>;

const Actor = z.strictObject({
  role: Role,
  /** The user the API key names; null for a key without a user (a bot, a CI job). */
  user: z.string().min(1).nullable(),
  /** Which API key wrote; two writes with the same label come from the same key. */
  key: z.string().min(1).optional(),
});
export type CaseActor = z.infer<typeof Actor>;

const Write = z.strictObject({
  actor: Actor,
  occurred_at: z.iso.datetime({ offset: true }),
  /** The sentence(s) the claims came from, as the caller sent them. */
  text: z.string(),
  claims: z.array(Statement).min(1),
});
export type Write = z.infer<typeof Write>;

const Holds = z.strictObject({
  predicate: z.string().min(1),
  qualifiers: Qualifiers.optional(),
  /** The values in force after the episode: one value, or every side of an open dispute. */
  current: z.array(Value).min(1),
});
export type Holds = z.infer<typeof Holds>;

export const OUTCOMES = ['extend', 'preserve', 'revise', 'reject', 'dispute'] as const;
export type Outcome = (typeof OUTCOMES)[number];

export const DecisionCase = z.strictObject({
  id: z.string().regex(/^[abc]-\d{3}$/),
  /** Where the wording comes from: commit message, changelog, incident report, ticket, chat… */
  genre: z.string().min(1),
  /** Why a careful person decides this way, in one sentence. */
  why: z.string().min(1),
  subject: z.string().min(1),
  /** The predicate's policy; absent: a stable attribute anyone may state (flag, min_role reader). */
  policy: z.strictObject({ mode: z.enum(['flag', 'supersede']), min_role: Role.optional() }).optional(),
  prior: z.array(Write),
  episode: Write,
  expected: z.enum(OUTCOMES),
  /** Every key the case is about, as it must read right after the episode. */
  after: z.array(Holds).min(1),
});
export type DecisionCase = z.infer<typeof DecisionCase>;

export const CASES_DIR = path.dirname(fileURLToPath(import.meta.url));
export const CASE_FILES = ['cases-a.jsonl', 'cases-b.jsonl', 'cases-c.jsonl'] as const;

/** Reads and validates one case file. */
export function loadCaseFile(file: string): DecisionCase[] {
  return readJsonl(file, DecisionCase);
}

/** Every case of every file, ids unique. */
export function loadCases(dir: string = CASES_DIR): DecisionCase[] {
  const cases = CASE_FILES.flatMap((file) => loadCaseFile(path.join(dir, file)));
  const ids = new Set<string>();
  for (const c of cases) {
    if (ids.has(c.id)) throw new Error(`case ${c.id} appears twice`);
    ids.add(c.id);
  }
  return cases;
}

/** The seed of the first held-out split. Changing it is changing what was held out. */
export const SPLIT_SEED = 'canon-decisions-2026-11-30';

/**
 * Which part of the evaluation a case belongs to:
 * - `development`: two thirds of the a and b cases, used to develop the cue table;
 * - `first-held-out`: the other third, by a hash of the seed and the id. It was measured once,
 *   after the first cue table (113/118 decided correctly, 2 protected facts lost), then read, and
 *   its misses guided the second cue table: it is development data since, reported apart;
 * - `held-out`: the c cases, written after the second cue table by a writer who read neither the
 *   cue table nor the other cases, and never used to develop cues.
 */
export const SPLITS = ['held-out', 'first-held-out', 'development'] as const;
export type Split = (typeof SPLITS)[number];

export function splitOf(id: string): Split {
  if (id.startsWith('c-')) return 'held-out';
  return createHash('sha256').update(`${SPLIT_SEED}|${id}`).digest()[0]! % 3 === 0 ? 'first-held-out' : 'development';
}

export function isHeldOut(id: string): boolean {
  return splitOf(id) === 'held-out';
}
