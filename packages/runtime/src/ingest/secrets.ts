import { lintSource } from '@secretlint/core';
import { secretLintProfiler } from '@secretlint/profiler';
import { creator as recommendedPreset } from '@secretlint/secretlint-rule-preset-recommend';
import type { SecretLintCoreConfig } from '@secretlint/types';
import { z } from 'zod';
import { listEpisodes, type Pool } from '@canon/store';
import {
  aRole,
  atLeast,
  canonSecretFindings,
  foldForRules,
  isDisguised,
  encodedRuns,
  unfoldFindings,
  envelopeOf,
  ForbiddenError,
  ValidationError,
  mapEnvelopeStrings,
  pushEnvelopeCredentialFlags,
  pushEnvelopeTexts,
  pushJsonCredentialFlags,
  pushJsonTexts,
  mapJsonStrings,
  mergeFindings,
  toTokenEnds,
  outsideMarkers,
  redactText,
  parseInput,
  type Envelope,
  type Redaction,
  type SecretFinding,
} from '@canon/core';
import type { Principal } from '../auth/principal.js';
import { withWorkspace } from '../auth/scope.js';

/**
 * Secrets at the door (design §3): detection with secretlint's recommended preset plus Canon's
 * own rules (`CANON_SECRET_RULES` in core), and the redaction of every string of an envelope.
 * Every writer — HTTP, MCP, CLI, each connector, proposals and resolutions — reaches the log
 * through `prepareBatch`, which calls `redactEnvelopes` before any envelope is hashed.
 */

const PRESET_ID = '@secretlint/secretlint-rule-preset-recommend';

// secretlint profiles every lint by default: a `performance.mark` per rule per text, kept in
// Node's performance timeline and in the profiler's own arrays for the life of the process. A
// server scans every string it is sent, so that is memory growing with every request (seen in a
// soak as tens of thousands of PerformanceMark objects). Canon never reads the profile.
secretLintProfiler.setEnabled(false);

const CONFIG: SecretLintCoreConfig = {
  rules: [
    {
      id: PRESET_ID,
      rule: recommendedPreset,
      // `secretlint-disable` comments are for a repository's own files; in an episode they
      // would let any writer wave a secret through.
      rules: [{ id: '@secretlint/secretlint-rule-filter-comments', disabled: true }],
    },
  ],
};

/** `@secretlint/secretlint-rule-stripe` → `stripe`: the rule as a marker names it. */
export function shortRuleId(ruleId: string): string {
  return ruleId.replace(/^@secretlint\/secretlint-rule-/, '').replace(/[^a-z0-9-]/gi, '-').toLowerCase() || 'secret';
}

async function secretlintFindings(content: string): Promise<SecretFinding[]> {
  const result = await lintSource({
    source: { content, filePath: 'episode.txt', ext: '.txt', contentType: 'text' },
    options: { config: CONFIG, noPhysicFilePath: true },
  });
  return result.messages.filter((m) => m.type === 'message').map((m) => ({ rule: shortRuleId(m.ruleId), start: m.range[0], end: m.range[1] }));
}

// U+0000 never occurs in an accepted string (ingest refuses it), so no secret can contain the
// separator; a match that still spans one is re-checked string by string.
const SEPARATOR = '\n\u0000\n';
/** Strings are linted together up to about this many characters per call. */
const CHUNK_CHARS = 1 << 20;

/**
 * Findings per string, as written and in what its base64 runs decode to (`encodedRuns`), one
 * span per secret.
 */
export async function detectSecrets(texts: readonly string[]): Promise<SecretFinding[][]> {
  const found = await findingsAsWritten(texts);
  // A secret written in base64 is read decoded, by every rule, once (what it decodes to is not
  // decoded again); a run whose text holds one is replaced whole, named for what was found in it.
  // A run a rule already found as written keeps that rule's name: the marker of a secret Canon
  // redacted before stays the same, so a re-sent episode is still a duplicate of the stored one.
  const runs: Array<{ index: number; start: number; end: number }> = [];
  const decoded: string[] = [];
  for (let t = 0; t < texts.length; t += 1) {
    for (const run of encodedRuns(texts[t]!)) {
      runs.push({ index: t, start: run.start, end: run.end });
      decoded.push(run.decoded);
    }
  }
  if (decoded.length > 0) {
    (await findingsAsWritten(decoded)).forEach((raw, k) => {
      const { index, start, end } = runs[k]!;
      if (found[index]!.some((f) => f.start < end && start < f.end)) return;
      const [first] = oneSpanEach(decoded[k]!, raw);
      if (first) found[index]!.push({ rule: `base64-${first.rule}`, start, end });
    });
  }
  return found.map((f, index) => oneSpanEach(texts[index]!, f));
}

/** Findings outside the markers already in the text, overlapping ones as one span (`mergeFindings`). */
function oneSpanEach(text: string, findings: SecretFinding[]): SecretFinding[] {
  return findings.length === 0 ? findings : mergeFindings(outsideMarkers(text, findings));
}

/**
 * Every rule's findings in each string as written, overlapping as found. secretlint costs about
 * 0.1 ms a call whatever the size, so the strings are joined (NUL-separated) and linted a chunk at
 * a time, and each match is mapped back to its string; Canon's rules run on each string alone.
 */
async function findingsAsWritten(texts: readonly string[]): Promise<SecretFinding[][]> {
  const found: SecretFinding[][] = new Array<SecretFinding[]>(texts.length);
  for (let t = 0; t < texts.length; t += 1) found[t] = canonSecretFindings(texts[t]!);
  const recheck = new Set<number>();
  let i = 0;
  while (i < texts.length) {
    const first = i;
    const starts: number[] = [];
    let length = 0;
    while (i < texts.length && (i === first || length + texts[i]!.length <= CHUNK_CHARS)) {
      if (i > first) length += SEPARATOR.length;
      starts.push(length);
      length += texts[i]!.length;
      i += 1;
    }
    if (length === 0) continue;
    // Joined in one go: appended a string at a time, the chunk was a chain of partial strings
    // (two a text) that secretlint's first regular expression then flattened.
    const content = first === 0 && i === texts.length ? texts.join(SEPARATOR) : texts.slice(first, i).join(SEPARATOR);
    for (const f of await secretlintFindings(content)) {
      const at = lastAtOrBefore(starts, f.start);
      const index = first + at;
      const offset = starts[at]!;
      if (f.end - offset > texts[index]!.length) {
        recheck.add(index);
        continue;
      }
      found[index]!.push(...toTokenEnds(texts[index]!, [{ rule: f.rule, start: f.start - offset, end: f.end - offset }]));
    }
  }
  for (const index of recheck) {
    const own = await secretlintFindings(texts[index]!);
    found[index]!.push(...toTokenEnds(texts[index]!, own));
  }
  // A token with an invisible character inside (`ghp_…\u200b…`) or written in full-width letters
  // matches no rule as written, and the compiler's normalization would make it whole again in a
  // memory: secretlint reads such a text again as it shows (Canon's rules do so themselves), and
  // what it finds there is replaced, invisible characters and all.
  for (let t = 0; t < texts.length; t += 1) {
    if (!isDisguised(texts[t]!)) continue;
    const fold = foldForRules(texts[t]!);
    found[t]!.push(...unfoldFindings(fold, toTokenEnds(fold.folded, await secretlintFindings(fold.folded))));
  }
  return found;
}

function lastAtOrBefore(sorted: readonly number[], value: number): number {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (sorted[mid]! <= value) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** A JSON value with every secret in its strings (keys too) replaced by its marker, as in an envelope. */
export async function redactJson(workspaceId: string, value: unknown): Promise<unknown> {
  const texts: string[] = [];
  pushJsonTexts(value, texts);
  const flags: boolean[] = [];
  pushJsonCredentialFlags(value, flags, null);
  const findings = texts.length === 0 ? [] : withStructured(texts, flags, await detectSecrets(texts));
  if (findings.every((f) => f.length === 0)) return value;
  let n = 0;
  return mapJsonStrings(value, (text) => {
    const f = findings[n++]!;
    return f.length === 0 ? text : redactText(workspaceId, text, f);
  });
}

/**
 * The findings of each text, with the whole text a finding where `flags` (`pushJsonCredentialFlags`'
 * walk, the texts' order) says it stands as a credential: a member's value named for one, a claim's
 * value whose predicate names one (`structured-credential`).
 */
function withStructured(texts: readonly string[], flags: readonly boolean[], findings: SecretFinding[][]): SecretFinding[][] {
  if (flags.length !== texts.length) throw new Error('secrets: the credential flags do not line up with the texts');
  for (let i = 0; i < flags.length; i += 1) {
    if (!flags[i]) continue;
    findings[i] = mergeFindings(outsideMarkers(texts[i]!, [...findings[i]!, { rule: 'structured-credential', start: 0, end: texts[i]!.length }]));
  }
  return findings;
}

export interface RedactedEnvelope {
  envelope: Envelope;
  /** One entry per secret replaced, in field order. Never the secret. */
  redactions: Redaction[];
}

/**
 * Every envelope with each detected secret replaced by its marker (`redactionMarker`). The
 * replacement is deterministic, so the same content redacts to the same envelope and a re-sent
 * item is still a duplicate.
 */
export async function redactEnvelopes(envelopes: readonly Envelope[]): Promise<RedactedEnvelope[]> {
  const texts: string[] = [];
  const counts = envelopes.map((e) => pushEnvelopeTexts(e, texts));
  const flags: boolean[] = [];
  for (const e of envelopes) pushEnvelopeCredentialFlags(e, flags);
  const findings = withStructured(texts, flags, await detectSecrets(texts));
  let next = 0;
  return envelopes.map((envelope, e) => {
    const from = next;
    next += counts[e]!;
    let clean = true;
    for (let t = from; t < next && clean; t += 1) clean = findings[t]!.length === 0;
    if (clean) return { envelope, redactions: [] };
    const redactions: Redaction[] = [];
    let n = from;
    // Strings come in the same order as pushEnvelopeTexts listed them; match them by position.
    const redacted = mapEnvelopeStrings(envelope, (path, text) => {
      const f = findings[n++]!;
      if (f.length === 0) return text;
      for (const one of f) redactions.push({ rule: one.rule, path });
      return redactText(envelope.workspace_id, text, f);
    });
    return { envelope: redacted, redactions };
  });
}

export const SecretScanParams = z.strictObject({
  subject: z.string().min(1).max(512).optional(),
  /** The `next` of an earlier answer: the scan resumes after that episode. */
  after: z.string().max(64).optional(),
  /** At most this many episodes are read per answer (in chunks of 250). */
  limit: z.coerce.number().int().min(1).max(10_000).default(2000),
});
export type SecretScanParams = z.input<typeof SecretScanParams>;

export interface SecretScanFinding {
  episode_id: string;
  source: string;
  idempotency_key: string;
  subject: string;
  log_position: string;
  /** Each secret: the rule and the field. Never the secret. */
  secrets: Redaction[];
}

export interface SecretScanResult {
  findings: SecretScanFinding[];
  /** Episodes read by this answer. */
  scanned: number;
  /** Pass as `after` to go on; null once the end of the log (as committed now) is reached. */
  next: string | null;
}

const SCAN_CHUNK = 250;

/**
 * The episodes of the log that hold a detected secret — stored before redaction existed, or
 * missed by the rules of their day. Owners and maintainers only, who can erase them. The log is
 * read in order a chunk at a time, at most `limit` episodes per answer, so memory stays bounded
 * whatever its size; `next` resumes.
 */
export async function scanSecrets(pool: Pool, principal: Principal, params: SecretScanParams): Promise<SecretScanResult> {
  if (!atLeast(principal.role, 'maintainer')) throw new ForbiddenError(`only an owner or a maintainer may scan the log for secrets, not ${aRole(principal.role)}`);
  const { subject, limit, after: from } = parseInput(SecretScanParams, params, 'query');
  let after = from;
  const findings: SecretScanFinding[] = [];
  let scanned = 0;
  for (;;) {
    const page = await withWorkspace(pool, principal, (tx) =>
      // Not gated on older transactions: a long transaction elsewhere in the cluster must not
      // end a scan early, and what ingest writes now is redacted already.
      listEpisodes(tx, { workspaceId: principal.workspace_id, subject, after, limit: Math.min(SCAN_CHUNK, limit - scanned), settled: false }),
    );
    if (!page.ok) throw new ValidationError('after: not a cursor returned by this API');
    const found = await redactEnvelopes(page.episodes.map((e) => envelopeOf(e)));
    page.episodes.forEach((e, i) => {
      const { envelope, redactions } = found[i]!;
      // Key and subject as redacted: a secret in either is not printed here either.
      if (redactions.length > 0) {
        findings.push({ episode_id: e.id, source: e.source, idempotency_key: envelope.idempotency_key, subject: envelope.subject, log_position: e.log_position, secrets: redactions });
      }
    });
    scanned += page.episodes.length;
    if (page.next === null) return { findings, scanned, next: null };
    after = page.next;
    if (scanned >= limit) return { findings, scanned, next: after };
  }
}
