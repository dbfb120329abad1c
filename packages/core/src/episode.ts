import { z } from 'zod';
import { ROLES, type Role } from './roles.js';
import { canonicalJson, xxh64 } from './hash.js';
import { ForbiddenError } from './errors.js';
import { jsonFault, MAX_JSON_DEPTH, stringFault } from './json-guard.js';
import { normalizeText } from './normalize.js';

/** Limits enforced at ingest; exported so the API can document them. */
export const LIMITS = Object.freeze({
  batchSize: 1000,
  requestBytes: 5 * 1024 * 1024,
  episodeBodyBytes: 256 * 1024,
  /** Bytes in UTF-8, not characters: what the database's indexes hold (an entry is at most 2,704 bytes). */
  shortString: 512,
  /** A claim's predicate and qualifiers together, as JSON, in UTF-8 (`keyPartFits`): the rest of a fact key's index entry. */
  factKeyBytes: 1024,
  text: 100_000,
  claimsPerEpisode: 1000,
  /** One claim's value, as JSON. */
  valueBytes: 64 * 1024,
  /** Levels of arrays and objects in any JSON a client sends. */
  jsonDepth: MAX_JSON_DEPTH,
});

/** Strings PostgreSQL and JSON consumers accept: well-formed Unicode, no U+0000. */
export const cleanString = <T extends z.ZodString>(s: T) =>
  s.superRefine((v, ctx) => {
    const fault = stringFault(v);
    if (fault) ctx.addIssue({ code: 'custom', message: fault });
  });

const shortString = cleanString(z.string().min(1).max(LIMITS.shortString)).refine(
  // A UTF-16 unit is at most 3 bytes in UTF-8: most strings are short enough not to be measured.
  (v) => v.length * 3 <= LIMITS.shortString || Buffer.byteLength(v, 'utf8') <= LIMITS.shortString,
  { message: `longer than ${LIMITS.shortString} bytes in UTF-8` },
);

// Characters no reader sees, or that reorder what is shown: controls, line and paragraph
// separators, every format character (a soft hyphen, a zero-width space, a word joiner, the bidi
// marks, embeddings, overrides and isolates, a byte-order mark, the tag characters that spell
// hidden ASCII …) but the zero-width joiner and non-joiner, which Persian and Indic words and emoji
// are written with, and the marks and letters that render as nothing (the combining grapheme
// joiner, Mongolian selectors, Khmer inherent vowels, Hangul fillers, the braille blank).
const HIDDEN_IN_NAME = /(?![\u200c\u200d])\p{Cf}|[\p{Cc}\p{Zl}\p{Zp}\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u2800\u3164\uffa0]/u;
// A joiner or a variation selector where it joins or varies nothing: at an end, or after a
// character of ASCII (`service:bil` U+200C `ling` shows as `service:billing`).
const IDLE_JOINER = /(?:^|[\u0000-\u007f])[\u200c\u200d\ufe00-\ufe0f\u{e0100}-\u{e01ef}]|[\u200c\u200d]$/u;

/**
 * Why a subject's name would pass for another's, or null: a character no one sees (or that
 * reorders what is shown), a joiner or selector that changes nothing shown, a space other than
 * U+0020 (a no-break or an ideographic space reads as one), or white space at either end.
 * `service:billing` followed by a zero-width space is a second subject that recall, the inspector
 * and every listing show as the first. Other look-alikes (another script's letters, a decomposed
 * accent) are names as written.
 */
export function subjectFault(subject: string, of: 'subject' | 'key' = 'subject'): string | null {
  const hidden = HIDDEN_IN_NAME.exec(subject) ?? /[^\S ]/u.exec(subject);
  if (hidden) return `holds ${codePoint(hidden[0])}, a character no reader sees, or one that reorders what is shown or reads as a space: the name would pass for another ${of}'s`;
  const idle = IDLE_JOINER.exec(subject);
  if (idle) return `holds ${codePoint([...idle[0]].at(-1)!)} where it joins or varies nothing: the name would pass for another ${of}'s`;
  if (/^\s|\s$/u.test(subject)) return `has white space at its start or end: the name would pass for another ${of}'s`;
  return null;
}

function codePoint(ch: string): string {
  return `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

/**
 * Whether a claim's own part of its fact key — predicate and qualifiers as JSON — fits in
 * `LIMITS.factKeyBytes`: beside the subject it makes the index entries of its memory. Measured in
 * bytes only when it could exceed (a UTF-16 unit is at most 3 bytes in UTF-8).
 */
export function keyPartFits(predicate: string, qualifiers: Readonly<Record<string, string>> | undefined): boolean {
  let units = predicate.length;
  for (const [k, v] of Object.entries(qualifiers ?? {})) units += k.length + v.length + 6;
  if (units * 3 + 8 <= LIMITS.factKeyBytes) return true;
  return Buffer.byteLength(JSON.stringify([predicate, qualifiers ?? {}]), 'utf8') <= LIMITS.factKeyBytes;
}

/** The size of a value as JSON; a value JSON cannot even write counts as too large. */
function jsonBytes(value: unknown): number {
  try {
    return Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

/** How `toISOString` writes an instant of the years 0000–9999. */
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * An instant given by a source. Any ISO 8601 date-time with offset; kept at millisecond precision.
 * One already written as `toISOString` writes it — what most clients send — is kept as it is:
 * the validation before has checked its month, day and time of day, so parsing and writing it
 * again gives the same text, and that parse was a third of an episode's validation.
 */
export const Instant = z.iso
  .datetime({ offset: true })
  .transform((s) => (ISO_INSTANT.test(s) ? s : new Date(s).toISOString()))
  // PostgreSQL has no year 0 (1 BC follows AD 1), and year 1 with an offset east of UTC can be
  // in it: such an instant was stored and failed every compile of its subject after.
  .refine(inStoredYears, { message: 'an instant from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z' });

/** Whether a `toISOString` spelling is of the years 0001–9999 (UTC), the ones the log stores. */
export function inStoredYears(iso: string): boolean {
  return ISO_INSTANT.test(iso) && !iso.startsWith('0000-');
}

// Bodies arrive through JSON.parse, so any value here is JSON already; z.json() would make the
// OpenAPI generator recurse forever.
export const JsonValue = z.unknown();

export const ClaimOp = z.enum(['assert', 'retract', 'replace']);
export type ClaimOp = z.infer<typeof ClaimOp>;

/** A reference to one claim, stable across rebuilds: the episode's (source, key) and the claim index. */
export const ClaimRef = z.object({
  source: shortString,
  idempotency_key: shortString,
  index: z.number().int().min(0),
});
export type ClaimRef = z.infer<typeof ClaimRef>;

/** A structured claim as written in an episode body (design §2). */
export const ClaimInput = z.strictObject({
  // Blank once normalized, it names no fact: the compile had no key to give it.
  predicate: shortString.refine((p) => normalizeText(p) !== '', { message: 'blank: a predicate needs a word' }),
  value: JsonValue.optional().refine((v) => jsonBytes(v) <= LIMITS.valueBytes, { message: `larger than ${LIMITS.valueBytes} bytes as JSON` }),
  qualifiers: z.record(shortString, shortString).optional(),
  conditions: z.array(shortString).max(100).optional(),
  op: ClaimOp.optional(),
  correction: z.boolean().optional(),
  effective_from: Instant.optional(),
  /** Claims this one settles (a conflict resolution). */
  settles: z.array(ClaimRef).max(100).optional(),
  /** Original wording, when the structured claim came from text. */
  text: cleanString(z.string().max(LIMITS.text)).optional(),
}).refine((c) => keyPartFits(c.predicate, c.qualifiers), {
  message: `the fact key's predicate and qualifiers are longer than ${LIMITS.factKeyBytes} bytes as JSON`,
  path: ['predicate'],
});
export type ClaimInput = z.infer<typeof ClaimInput>;

export const EpisodeBody = z.looseObject({
  text: z.string().max(LIMITS.text).optional(),
  claims: z.array(ClaimInput).max(LIMITS.claimsPerEpisode).optional(),
});
export type EpisodeBody = z.infer<typeof EpisodeBody>;

/** Source ids are short slugs so that `source:key` lineage defaults can never be ambiguous. */
export const SourceId = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[a-z][a-z0-9_.-]*$/, 'lowercase letters, digits, "_", "." or "-", starting with a letter');

/** What a caller posts. Workspace, owner and actor come from the credential, never from here. */
export const EpisodeInput = z
  .strictObject({
    source: SourceId.default('api'),
    idempotency_key: shortString,
    subject: shortString,
    scope: z.enum(['workspace', 'personal']).default('workspace'),
    kind: z
      .string()
      .min(1)
      .max(64)
      .regex(/^[a-z][a-z0-9_]*$/, 'lowercase letters, digits and "_"')
      .default('message'),
    body: EpisodeBody.default({}),
    occurred_at: Instant.optional(),
    observed_at: Instant.optional(),
    sequence: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
    lineage: shortString.optional(),
    snapshot: z.boolean().default(false),
    source_ref: cleanString(z.string().min(1).max(2048)).optional(),
  })
  .superRefine((e, ctx) => {
    const fault = jsonFault(e.body, LIMITS.jsonDepth - 1);
    if (fault) ctx.addIssue({ code: 'custom', path: ['body', ...(fault.path === '' ? [] : fault.path.split('.'))], message: fault.message });
    else if (jsonBytes(e.body) > LIMITS.episodeBodyBytes) {
      ctx.addIssue({ code: 'custom', path: ['body'], message: `larger than ${LIMITS.episodeBodyBytes} bytes` });
    }
  });
export type EpisodeInput = z.output<typeof EpisodeInput>;

export interface Actor {
  role: Role;
  user: string | null;
}

export const Actor = z.object({ role: z.enum(ROLES), user: z.string().nullable() });

/**
 * The part of an episode that names "the same event": every field of design §2 but the ids
 * and `ingested_at`. `occurred_at` is the one the source gave (null when it gave none), so
 * a retried post without a time is still the same event even though the stored row carries
 * the defaulted ingest time.
 */
export interface Envelope {
  workspace_id: string;
  source: string;
  idempotency_key: string;
  subject: string;
  scope: 'workspace' | 'personal';
  owner: string | null;
  kind: string;
  body: EpisodeBody;
  occurred_at: string | null;
  observed_at: string | null;
  sequence: number | null;
  lineage: string;
  snapshot: boolean;
  actor: Actor;
  source_ref: string | null;
}

/** An episode as stored in the log. */
export interface Episode extends Omit<Envelope, 'occurred_at'> {
  id: string;
  /** The effective time: as given, or the ingest time when the source gave none. */
  occurred_at: string;
  /** True when occurred_at was defaulted to the ingest time. */
  occurred_at_defaulted: boolean;
  ingested_at: string;
  content_hash: string;
  /**
   * The API key that wrote it: the author of its claims when the key names no user. Outside the
   * envelope, so the same event re-sent by another key is still a duplicate.
   */
  actor_key?: string | null;
}

export function defaultLineage(source: string, idempotencyKey: string): string {
  return `${source}:${idempotencyKey}`;
}

/** Builds the envelope from a parsed input and the caller's credential. */
export function toEnvelope(input: EpisodeInput, workspaceId: string, actor: Actor): Envelope {
  if (input.scope === 'personal' && !actor.user) {
    throw new ForbiddenError('personal episodes need an API key that names a user (canon keys create --user U)');
  }
  // Members in code-unit order, as the canonical form (RFC 8785) lists them: hashing then
  // serializes the envelope as it is, with no sorted copy made of each one.
  return {
    actor: { role: actor.role, user: actor.user },
    body: input.body,
    idempotency_key: input.idempotency_key,
    kind: input.kind,
    lineage: input.lineage ?? defaultLineage(input.source, input.idempotency_key),
    observed_at: input.observed_at ?? null,
    occurred_at: input.occurred_at ?? null,
    owner: input.scope === 'personal' ? actor.user : null,
    scope: input.scope,
    sequence: input.sequence ?? null,
    snapshot: input.snapshot,
    source: input.source,
    source_ref: input.source_ref ?? null,
    subject: input.subject,
    workspace_id: workspaceId,
  };
}

export function canonicalEnvelope(envelope: Envelope): string {
  return canonicalJson(envelope);
}

/** xxh64 of the RFC 8785 canonical envelope (design §2). A shortcut: equality is decided on the envelope. */
export function contentHash(envelope: Envelope): string {
  return xxh64(canonicalEnvelope(envelope));
}

/** Recovers the envelope of a stored episode, for comparison with a re-posted one. */
export function envelopeOf(e: Episode): Envelope {
  return {
    workspace_id: e.workspace_id,
    source: e.source,
    idempotency_key: e.idempotency_key,
    subject: e.subject,
    scope: e.scope,
    owner: e.owner,
    kind: e.kind,
    body: e.body,
    occurred_at: e.occurred_at_defaulted ? null : e.occurred_at,
    observed_at: e.observed_at,
    sequence: e.sequence,
    lineage: e.lineage,
    snapshot: e.snapshot,
    actor: e.actor,
    source_ref: e.source_ref,
  };
}
