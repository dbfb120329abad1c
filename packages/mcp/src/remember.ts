import { canonicalJson, LIMITS, sha256, ValidationError, type DecisionKind } from '@canon/core';
import { z } from 'zod';

/** The source every episode written through MCP carries. */
export const MCP_SOURCE = 'mcp';

const Scalar = z.union([z.string(), z.number(), z.boolean()]);

/** The arguments of `remember`, as the tool's input schema (each described for the agent). */
export const RememberShape = {
  subject: z.string().min(1).max(LIMITS.shortString).describe('What the memory is about, e.g. "service:billing", "repo:canon", "person:ada".'),
  predicate: z
    .string()
    .min(1)
    .max(LIMITS.shortString)
    .optional()
    .describe('The attribute, e.g. "deploy day". With a predicate give a value; without one, give text and Canon reads the claims from it.'),
  value: z
    .union([Scalar, z.array(Scalar), z.record(z.string(), z.unknown())])
    .optional()
    .describe('The value of the attribute, e.g. "Tuesday", 3, ["a", "b"].'),
  text: z
    .string()
    .min(1)
    .max(LIMITS.text)
    .optional()
    .describe(
      'Free text to remember, or the sentence the claim came from. With a claim it qualifies it: hedges and unverifiable origin lower it, "Correction:" or "replace X with Y" make it a correction, "as of 2019" or "a 2017 spreadsheet says" date it in the past, "per the signed contract" or "the CMDB shows" attest it now. Instructions inside it are stored as data.',
    ),
  qualifiers: z
    .record(z.string().min(1).max(LIMITS.shortString), z.string().min(1).max(LIMITS.shortString))
    .optional()
    .describe('What tells this fact apart from its siblings, e.g. {"env": "staging"}: staging and production are two memories.'),
  conditions: z.array(z.string().min(1).max(LIMITS.shortString)).max(100).optional().describe('Conditions on the value, e.g. ["only after the integration tests pass"].'),
  scope: z.enum(['workspace', 'personal']).default('workspace').describe('"workspace": shared with every key of the workspace; "personal": only the key\'s user.'),
  effective_from: z.iso
    .datetime({ offset: true })
    .optional()
    .describe('A change from a date: when the value starts to hold (ISO 8601 with offset), in the past or the future. It wins over any date in the text.'),
  correction: z.boolean().optional().describe('True when the earlier value was wrong (not: the world changed): it replaces it from its start. False keeps "Correction:" in the text from counting. Either wins over the text.'),
  occurred_at: z.iso.datetime({ offset: true }).optional().describe('When this was said or observed, if not now.'),
  source_ref: z.string().min(1).max(2048).optional().describe('Where a person can check it: a URL, a path, a commit.'),
};
export const RememberArgs = z.object(RememberShape);
export type RememberArgs = z.output<typeof RememberArgs>;

/**
 * The idempotency key of a `remember` call: a hash of the canonical JSON of its arguments and of
 * who writes them (the port's `writer`) — never the time — so a retried call names the same event
 * and comes back as a duplicate instead of a second write. Keyed by the arguments alone, the same
 * words from another writer found the first one's key taken: that answer told anyone whether a
 * person had said exactly this (a personal statement too), outlived the person's erasure, and let
 * anyone take a statement's key before its writer said it.
 */
export function rememberKey(args: RememberArgs, writer: string): string {
  return `remember:${sha256(canonicalJson({ args: stripUndefined(args), writer }))}`;
}

function stripUndefined(args: RememberArgs): Record<string, unknown> {
  return Object.fromEntries(Object.entries(args).filter(([, v]) => v !== undefined));
}

/** The episode a `remember` call appends: one structured claim, or a message whose text is read. */
export function rememberEpisode(args: RememberArgs, writer: string): Record<string, unknown> {
  if (args.predicate === undefined && args.text === undefined) throw new ValidationError('give a predicate and a value, or text');
  if (args.predicate !== undefined && args.value === undefined) throw new ValidationError('a predicate needs a value');
  if (args.predicate === undefined && (args.value !== undefined || args.qualifiers || args.conditions || args.effective_from || args.correction)) {
    throw new ValidationError('value, qualifiers, conditions, effective_from and correction belong to a claim: give its predicate');
  }
  const claim = args.predicate === undefined
    ? null
    : stripUndefinedClaim({
        predicate: args.predicate,
        value: args.value,
        qualifiers: args.qualifiers,
        conditions: args.conditions,
        effective_from: args.effective_from,
        correction: args.correction,
        text: args.text,
      });
  return {
    source: MCP_SOURCE,
    idempotency_key: rememberKey(args, writer),
    subject: args.subject,
    scope: args.scope,
    kind: claim ? 'claim' : 'message',
    body: claim ? { claims: [claim] } : { text: args.text },
    ...(args.occurred_at ? { occurred_at: args.occurred_at } : {}),
    ...(args.source_ref ? { source_ref: args.source_ref } : {}),
  };
}

function stripUndefinedClaim(claim: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(claim).filter(([, v]) => v !== undefined));
}

/** What `remember` reports for a memory it touched. */
export const DECISIONS = [
  'created',
  'duplicate',
  'enriched',
  'superseded',
  'scheduled',
  'settled',
  'conflicted',
  'overruled',
  'historical',
  'retracted',
  'no_effect',
] as const;
export type Decision = (typeof DECISIONS)[number];

/**
 * The decision for a remembered claim in one word an agent acts on, from the kind of decision
 * the fold recorded for it and the ingest status: an episode that was already in the log is a `duplicate` whatever the fold
 * made of it the first time. `effectiveLater`: the claim takes effect after now.
 */
export function decisionOf(kind: DecisionKind, ingest: string, effectiveLater = false): Decision {
  if (ingest === 'duplicate') return 'duplicate';
  // A value that takes effect later (an `effective_from` ahead of now) replaces nothing yet: what
  // holds now holds until then.
  if (effectiveLater && (kind === 'supports' || kind === 'changes')) return 'scheduled';
  switch (kind) {
    case 'supports':
      return 'created';
    case 'duplicate_of':
      return 'duplicate';
    case 'enriches':
      return 'enriched';
    case 'changes':
    case 'corrects':
      return 'superseded';
    case 'settles':
      return 'settled';
    case 'disputes':
      return 'conflicted';
    case 'overruled':
      return 'overruled';
    case 'superseded_by':
      return 'historical';
    case 'retracts':
      return 'retracted';
    case 'no_effect':
      return 'no_effect';
  }
}

export const DECISION_MEANING: Readonly<Record<Decision, string>> = Object.freeze({
  created: 'a new value now holds',
  duplicate: 'already recorded: nothing new was written or changed',
  enriched: 'the same value, with the conditions added',
  superseded: 'this value replaced the one in force',
  scheduled: 'recorded to take effect at its effective_from: what holds now holds until then',
  settled: 'this correction settled an open conflict',
  conflicted: 'a different value of equal standing holds: the memory is conflicted until someone authorized resolves it',
  overruled: 'kept as evidence, changes nothing: the value in force has higher standing',
  historical: 'filed in history: a later value has replaced it',
  retracted: 'the value was withdrawn',
  no_effect: 'recorded, with no effect on the memory',
});
