// Builders for the core's own tests. Not exported from the package entry.
import fc from 'fast-check';
import type { Claim, LineageVersion } from './claim.js';
import type { ClaimRef } from './episode.js';
import { factKeyString, makeFactKey, memoryId } from './fact-key.js';
import type { Json } from './normalize.js';
import { normalizeConditions, normalizeValue } from './normalize.js';
import type { Role } from './roles.js';
import { ROLE_STANDING } from './roles.js';

export interface ClaimSpec {
  value?: unknown;
  predicate?: string;
  subject?: string;
  qualifiers?: Record<string, string>;
  scope?: 'workspace' | 'personal';
  owner?: string | null;
  source?: string;
  key: string;
  index?: number;
  role?: Role;
  standing?: number;
  at: string;
  effective?: string;
  correction?: boolean;
  conditions?: string[];
  lineage?: string;
  sequence?: number | null;
  ingested?: string;
  op?: Claim['op'];
  settles?: ClaimRef[];
  snapshot?: boolean;
  text?: string;
  /** Who stated it; by default each claim has an author of its own (a key per claim). */
  author?: string | null;
  cues?: string[];
}

export const WS = 'ws_test';

export function claim(spec: ClaimSpec): Claim {
  const fk = makeFactKey({
    workspace_id: WS,
    scope: spec.scope ?? 'workspace',
    owner: spec.owner ?? null,
    subject: spec.subject ?? 'service:billing',
    predicate: spec.predicate ?? 'staging deploy day',
    qualifiers: spec.qualifiers,
  });
  const source = spec.source ?? 'api';
  const role = spec.role ?? 'agent';
  const at = new Date(spec.at).toISOString();
  const value: Json = normalizeValue(spec.value ?? null);
  return {
    workspace_id: WS,
    episode_id: `ep_${source}_${spec.key}`,
    index: spec.index ?? 0,
    source,
    idempotency_key: spec.key,
    lineage: spec.lineage ?? `${source}:${spec.key}`,
    snapshot: spec.snapshot ?? false,
    subject: fk.subject,
    kind: 'claim',
    occurred_at: at,
    sequence: spec.sequence ?? null,
    ingested_at: new Date(spec.ingested ?? spec.at).toISOString(),
    source_ref: null,
    fact_key: fk,
    key: factKeyString(fk),
    memory_id: memoryId(WS, fk),
    predicate: fk.predicate,
    op: spec.op ?? 'assert',
    value,
    text: spec.text ?? `${fk.predicate}: ${JSON.stringify(value)}`,
    conditions: normalizeConditions(spec.conditions),
    correction: spec.correction ?? false,
    settles: spec.settles ?? [],
    effective_from: new Date(spec.effective ?? spec.at).toISOString(),
    effective_explicit: spec.effective !== undefined,
    standing: spec.standing ?? ROLE_STANDING[role],
    role,
    user: null,
    author: spec.author === undefined ? `key:${source}:${spec.key}` : spec.author,
    origin: 'structured',
    cues: spec.cues ?? [],
    extractor_version: 'test',
  };
}

/** The lineage version a claim came from, stating the given keys. */
export function versionOf(c: Claim, keys: string[] = [c.key]): LineageVersion {
  return {
    lineage: c.lineage,
    source: c.source,
    idempotency_key: c.idempotency_key,
    occurred_at: c.occurred_at,
    sequence: c.sequence,
    snapshot: c.snapshot,
    ingested_at: c.ingested_at,
    role: c.role,
    author: c.author,
    keys,
  };
}

export function ref(c: Claim): ClaimRef {
  return { source: c.source, idempotency_key: c.idempotency_key, index: c.index };
}

import type { Episode } from './episode.js';

export function episode(over: Partial<Episode> & { text?: string; claims?: Episode['body']['claims'] } = {}): Episode {
  const { text, claims, ...rest } = over;
  return {
    id: 'ep_1',
    workspace_id: WS,
    source: 'api',
    idempotency_key: 'k1',
    subject: 'service:billing',
    scope: 'workspace',
    owner: null,
    kind: 'message',
    body: { ...(text !== undefined ? { text } : {}), ...(claims ? { claims } : {}) },
    occurred_at: '2024-05-06T12:00:00.000Z', // a Monday
    occurred_at_defaulted: false,
    observed_at: null,
    sequence: null,
    lineage: 'api:k1',
    snapshot: false,
    actor: { role: 'member', user: 'u_ann' },
    source_ref: null,
    ingested_at: '2024-05-06T12:00:01.000Z',
    content_hash: '0',
    ...rest,
  };
}

/**
 * Any JSON value as `JSON.parse` could give it, its strings drawn from `strings` and its keys from
 * `keys`; with `undefinedMembers`, also objects and arrays holding `undefined`, which a JSON
 * serializer must drop or write as null.
 */
export function jsonValues(options: { strings: fc.Arbitrary<string>; keys: fc.Arbitrary<string>; maxLength?: number; undefinedMembers?: boolean }): fc.Arbitrary<unknown> {
  const { strings, keys, maxLength, undefinedMembers = false } = options;
  return fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      fc.constant(null),
      fc.boolean(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.integer(),
      strings,
      fc.array(tie('value'), { maxLength }),
      fc.dictionary(keys, tie('value'), { maxKeys: maxLength }),
      ...(undefinedMembers
        ? [fc.dictionary(keys, fc.option(tie('value'), { nil: undefined }), { maxKeys: maxLength }), fc.array(fc.option(tie('value'), { nil: undefined }), { maxLength })]
        : []),
    ),
  })).value;
}
