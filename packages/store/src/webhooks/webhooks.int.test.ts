import { describe, expect, it } from 'vitest';
import { useStoreDatabase } from '@canon/testing';
import { inTransaction, type Pool } from '../db.js';
import { advanceWebhook } from './advance-webhook.js';
import { allWebhookIds } from './all-webhook-ids.js';
import { countWebhooks } from './count-webhooks.js';
import { deleteWebhook } from './delete-webhook.js';
import { deleteWebhooksOfSubjects } from './delete-webhooks-of-subjects.js';
import { insertWebhook, type NewWebhook } from './insert-webhook.js';
import { listWebhooks } from './list-webhooks.js';
import { lockWebhook } from './lock-webhook.js';
import { noteWebhookError } from './note-webhook-error.js';
import { recordDeliveryAttempt } from './record-delivery-attempt.js';
import { webhookById } from './webhook-by-id.js';

// Webhooks: where each one's deliveries have got to in the feed, and how they went.

let pool: Pool;
useStoreDatabase((p) => {
  pool = p;
});

let n = 0;
function hook(over: Partial<NewWebhook> = {}): NewWebhook {
  n += 1;
  return {
    id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    url: `https://example.test/hook/${n}`,
    subject: null,
    predicate: 'deploy_day',
    key_id: '00000000-0000-4000-8000-0000000000ff',
    secret: `secret-${n}`,
    after: { tx: '0', position: '0' },
    ...over,
  };
}

describe('insertWebhook', () => {
  it('creates a webhook and answers with its row, without the secret', async () => {
    const w = hook({ after: { tx: '12', position: '3' } });
    const row = await insertWebhook(pool, 'w-insert', w);
    expect(row).toEqual({
      workspace_id: 'w-insert',
      id: w.id,
      url: w.url,
      subject: null,
      predicate: 'deploy_day',
      key_id: w.key_id,
      after: '12.3',
      delivered: 0,
      failed_attempts: 0,
      dead_letters: 0,
      last_error: null,
      last_attempt_at: null,
      last_delivered_at: null,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    await expect(insertWebhook(pool, 'w-insert', w)).rejects.toMatchObject({ code: '23505' });
  });
});

describe('countWebhooks', () => {
  it('counts a workspace\'s webhooks', async () => {
    expect(await countWebhooks(pool, 'w-count')).toBe(0);
    await insertWebhook(pool, 'w-count', hook());
    await insertWebhook(pool, 'w-count', hook());
    expect(await countWebhooks(pool, 'w-count')).toBe(2);
  });
});

describe('listWebhooks', () => {
  it('lists a workspace\'s webhooks in creation order', async () => {
    const a = await insertWebhook(pool, 'w-list', hook());
    const b = await insertWebhook(pool, 'w-list', hook());
    await insertWebhook(pool, 'w-list-2', hook());
    expect(await listWebhooks(pool, 'w-list')).toEqual([a, b]);
  });
});

describe('deleteWebhook', () => {
  it('deletes a webhook and says whether there was one', async () => {
    const w = hook();
    await insertWebhook(pool, 'w-delete', w);
    expect(await deleteWebhook(pool, 'w-other', w.id)).toBe(false);
    expect(await deleteWebhook(pool, 'w-delete', w.id)).toBe(true);
    expect(await deleteWebhook(pool, 'w-delete', w.id)).toBe(false);
    expect(await listWebhooks(pool, 'w-delete')).toEqual([]);
  });
});

describe('deleteWebhooksOfSubjects', () => {
  it('deletes the webhooks of a workspace that follow one of the subjects, and only those', async () => {
    const gone = hook({ subject: 'customer:gone' });
    const all = hook({ subject: null });
    const other = hook({ subject: 'customer:kept' });
    const elsewhere = hook({ subject: 'customer:gone' });
    for (const w of [gone, all, other]) await insertWebhook(pool, 'w-subjects', w);
    await insertWebhook(pool, 'w-subjects-2', elsewhere);
    expect(await deleteWebhooksOfSubjects(pool, 'w-subjects', [])).toBe(0);
    expect(await deleteWebhooksOfSubjects(pool, 'w-subjects', ['customer:gone', 'customer:none'])).toBe(1);
    expect((await listWebhooks(pool, 'w-subjects')).map((w) => w.id).sort()).toEqual([all.id, other.id].sort());
    expect((await listWebhooks(pool, 'w-subjects-2')).map((w) => w.id)).toEqual([elsewhere.id]);
  });
});

describe('allWebhookIds', () => {
  it('lists every webhook of every workspace', async () => {
    const a = hook();
    const b = hook();
    await insertWebhook(pool, 'w-all-1', a);
    await insertWebhook(pool, 'w-all-2', b);
    const all = await allWebhookIds(pool);
    expect(all.filter((r) => r.workspace_id.startsWith('w-all-'))).toEqual([
      { workspace_id: 'w-all-1', id: a.id },
      { workspace_id: 'w-all-2', id: b.id },
    ]);
  });
});

describe('lockWebhook', () => {
  it('locks a webhook for one dispatcher: another skips it, or waits for it', async () => {
    const w = hook();
    await insertWebhook(pool, 'w-lock', w);
    const holder = await pool.connect();
    try {
      await holder.query('BEGIN');
      expect(await lockWebhook(holder, 'w-lock', w.id, false)).toEqual(expect.objectContaining({ id: w.id, secret: w.secret }));
      expect(await inTransaction(pool, (tx) => lockWebhook(tx, 'w-lock', w.id, false))).toBeNull();
      const waiting = inTransaction(pool, (tx) => lockWebhook(tx, 'w-lock', w.id, true));
      await advanceWebhook(holder, 'w-lock', w.id, { tx: '5', position: '6' });
      await holder.query('COMMIT');
      expect((await waiting)?.after).toBe('5.6');
    } finally {
      holder.release();
    }
    expect(await inTransaction(pool, (tx) => lockWebhook(tx, 'w-lock', 'ffffffff-0000-4000-8000-000000000000', false))).toBeNull();
  });
});

describe('advanceWebhook', () => {
  it('moves where deliveries are queued up to', async () => {
    const w = hook();
    await insertWebhook(pool, 'w-advance', w);
    await advanceWebhook(pool, 'w-advance', w.id, { tx: '900', position: '42' });
    expect((await webhookById(pool, 'w-advance', w.id))?.after).toBe('900.42');
  });
});

describe('recordDeliveryAttempt', () => {
  it('counts deliveries, failed attempts and dead letters, keeping the last error', async () => {
    const w = hook();
    await insertWebhook(pool, 'w-attempts', w);
    await recordDeliveryAttempt(pool, 'w-attempts', w.id, { ok: false, error: 'x'.repeat(600), dead: false });
    await recordDeliveryAttempt(pool, 'w-attempts', w.id, { ok: false, error: 'HTTP 500', dead: true });
    await recordDeliveryAttempt(pool, 'w-attempts', w.id, { ok: true });
    const row = (await webhookById(pool, 'w-attempts', w.id))!;
    expect([row.delivered, row.failed_attempts, row.dead_letters, row.last_error]).toEqual([1, 2, 1, 'HTTP 500']);
    expect(row.last_delivered_at).not.toBeNull();
    expect(row.last_attempt_at).toBe(row.last_delivered_at);
    const long = hook();
    await insertWebhook(pool, 'w-attempts', long);
    await recordDeliveryAttempt(pool, 'w-attempts', long.id, { ok: false, error: 'x'.repeat(600), dead: false });
    expect((await webhookById(pool, 'w-attempts', long.id))?.last_error).toHaveLength(500);
  });
});

describe('webhookById', () => {
  it('reads a webhook with its secret, and null once removed', async () => {
    const w = hook();
    const row = await insertWebhook(pool, 'w-by-id', w);
    expect(await webhookById(pool, 'w-by-id', w.id)).toEqual({ ...row, secret: w.secret });
    await deleteWebhook(pool, 'w-by-id', w.id);
    expect(await webhookById(pool, 'w-by-id', w.id)).toBeNull();
  });
});

describe('noteWebhookError', () => {
  it('says why a webhook delivers nothing without counting an attempt', async () => {
    const w = hook();
    await insertWebhook(pool, 'w-note', w);
    await noteWebhookError(pool, 'w-note', w.id, 'its key was revoked');
    const row = (await webhookById(pool, 'w-note', w.id))!;
    expect([row.last_error, row.failed_attempts, row.last_attempt_at]).toEqual(['its key was revoked', 0, null]);
  });
});
