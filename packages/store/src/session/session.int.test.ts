import { describe, expect, it } from 'vitest';
import { logEpisodes, useStoreDatabase } from '@canon/testing';
import { inTransaction, type Pool, type PoolClient, type Sql } from '../db.js';
import { allUsersVisible } from './all-users-visible.js';
import { beginAsSystem } from './begin-as-system.js';
import { beginInScope } from './begin-in-scope.js';
import { readInScope } from './read-in-scope.js';
import { enterScope } from './enter-scope.js';
import { enterSystemRole } from './enter-system-role.js';
import { inSnapshot } from './in-snapshot.js';
import { lockKeyBootstrap } from './lock-key-bootstrap.js';
import { closeWrites, writesOpenStatement } from './close-writes.js';
import { lockPolicies } from './lock-policies.js';
import { lockSubject, lockSubjectStatement } from './lock-subject.js';
import { setAllUsersVisible } from './set-all-users-visible.js';
import { LockTimeoutError, withLockTimeout } from './with-lock-timeout.js';
import { StatementTimeoutError, withStatementTimeout } from './with-statement-timeout.js';
import { withTimeoutSetting } from './with-timeout-setting.js';

// What a transaction may see (row-level security's settings), which role it runs as, and the
// advisory locks transactions take turns on.

let pool: Pool;
useStoreDatabase(async (p) => {
  pool = p;
  await logEpisodes(pool, 'w-a', [{ idempotency_key: 'shared', subject: 's' }]);
  await logEpisodes(pool, 'w-a', [{ idempotency_key: 'ann', subject: 's', scope: 'personal' }], { role: 'member', user: 'ann' });
  await logEpisodes(pool, 'w-b', [{ idempotency_key: 'other', subject: 's' }]);
});

const visibleKeys = async (tx: Sql) => (await tx.query<{ k: string }>('SELECT idempotency_key AS k FROM episodes ORDER BY 1')).rows.map((r) => r.k);
const role = async (tx: Sql) => (await tx.query<{ r: string }>('SELECT current_user AS r')).rows[0]!.r;

/** Holds fn's lock in a transaction of its own until the returned release is called. */
async function holding(fn: (tx: PoolClient) => Promise<void>): Promise<() => Promise<void>> {
  const tx = await pool.connect();
  await tx.query('BEGIN');
  await fn(tx);
  return async () => {
    await tx.query('COMMIT');
    tx.release();
  };
}

describe('enterScope', () => {
  it('confines the transaction to its workspace and user, as canon_app', async () => {
    const seen = await inTransaction(pool, async (tx) => {
      await enterScope(tx, { workspace_id: 'w-a', user: 'bob', all_users: false });
      return { keys: await visibleKeys(tx), role: await role(tx) };
    });
    expect(seen).toEqual({ keys: ['shared'], role: 'canon_app' });
    const ann = await inTransaction(pool, async (tx) => {
      await enterScope(tx, { workspace_id: 'w-a', user: 'ann', all_users: false });
      return visibleKeys(tx);
    });
    expect(ann).toEqual(['ann', 'shared']);
    // All of it ends with the transaction: the pool's connections are back to their own role.
    expect(await Promise.all([role(pool), role(pool)])).not.toContain('canon_app');
  });
});

describe('beginInScope', () => {
  it('opens the transaction confined as enterScope does, in one round trip', async () => {
    const seen = await inTransaction(pool, async (tx) => ({ keys: await visibleKeys(tx), role: await role(tx) }), undefined, (tx) => beginInScope(tx, { workspace_id: 'w-a', user: 'ann', all_users: false }));
    expect(seen).toEqual({ keys: ['ann', 'shared'], role: 'canon_app' });
    expect(await Promise.all([role(pool), role(pool)])).not.toContain('canon_app');
  });

  it('writes any workspace and user as the values they are, quotes and backslashes included', async () => {
    const user = "o'brien\\'; SELECT 1; --";
    const settings = await inTransaction(
      pool,
      async (tx) => (await tx.query<{ w: string; u: string; a: string }>(`SELECT current_setting('canon.workspace_id') AS w, current_setting('canon.user') AS u, current_setting('canon.all_users') AS a`)).rows[0],
      undefined,
      (tx) => beginInScope(tx, { workspace_id: "w-'x\\", user, all_users: true }),
    );
    expect(settings).toEqual({ w: "w-'x\\", u: user, a: 'on' });
  });
});

describe('readInScope', () => {
  const keysAndRole = "SELECT array_agg(idempotency_key ORDER BY idempotency_key) AS keys, current_user AS role FROM episodes";

  it('reads confined as enterScope confines a transaction, and the confinement ends with the read', async () => {
    // One connection, so that what follows runs where the read ran.
    const one = await pool.connect();
    try {
      const [first, second] = await readInScope(one, { workspace_id: 'w-a', user: 'ann', all_users: false }, [keysAndRole, keysAndRole]);
      expect(first!.rows).toEqual([{ keys: ['ann', 'shared'], role: 'canon_app' }]);
      expect(second!.rows).toEqual(first!.rows);
      expect((await readInScope(one, { workspace_id: 'w-a', user: 'bob', all_users: false }, [keysAndRole]))[0]!.rows).toEqual([{ keys: ['shared'], role: 'canon_app' }]);
      expect((await one.query(keysAndRole)).rows[0].role).not.toBe('canon_app');
      expect((await one.query("SELECT current_setting('canon.workspace_id', true) AS w")).rows[0].w || null).toBeNull();
    } finally {
      one.release();
    }
  });

  it('leaves the connection idle after a failed statement, and nothing it wrote', async () => {
    const one = await pool.connect();
    try {
      await expect(
        readInScope(one, { workspace_id: 'w-a', user: null, all_users: true }, ["INSERT INTO pending (workspace_id, subject, episode_id, scope) SELECT workspace_id, 'rolled-back', id, 'workspace' FROM episodes WHERE scope = 'workspace'", 'SELECT 1 / 0']),
      ).rejects.toThrow(/division by zero/);
      expect((await one.query('SELECT pg_current_xact_id_if_assigned() AS x, current_user AS role')).rows[0]).toEqual({ x: null, role: expect.not.stringMatching(/^canon_app$/) });
      expect((await one.query("SELECT count(*)::int AS n FROM pending WHERE subject = 'rolled-back'")).rows[0]).toEqual({ n: 0 });
    } finally {
      one.release();
    }
  });

  it('reads as canon_system, across workspaces, for \'system\'', async () => {
    const [read] = await readInScope(pool, 'system', [keysAndRole]);
    expect(read!.rows).toEqual([{ keys: ['ann', 'other', 'shared'], role: 'canon_system' }]);
    expect((await pool.query('SELECT current_user AS role')).rows[0].role).not.toBe('canon_system');
  });

  it('writes any workspace and user as the values they are, and reads nothing for no statement', async () => {
    const user = "o'brien\\'; SELECT 1; --";
    const [read] = await readInScope(pool, { workspace_id: "w-'x\\", user, all_users: false }, ["SELECT current_setting('canon.workspace_id') AS w, current_setting('canon.user') AS u"]);
    expect(read!.rows).toEqual([{ w: "w-'x\\", u: user }]);
    expect(await readInScope(pool, { workspace_id: 'w-a', user: null, all_users: false }, [])).toEqual([]);
  });
});

describe('beginAsSystem', () => {
  it('opens the transaction as canon_system, which sees every workspace', async () => {
    const seen = await inTransaction(pool, async (tx) => ({ keys: await visibleKeys(tx), role: await role(tx) }), undefined, beginAsSystem);
    expect(seen).toEqual({ keys: ['ann', 'other', 'shared'], role: 'canon_system' });
  });
});

describe('allUsersVisible', () => {
  it('is true only inside a transaction that sees every user\'s rows', async () => {
    expect(await allUsersVisible(pool)).toBe(false);
    const seen = await inTransaction(pool, async (tx) => {
      await enterScope(tx, { workspace_id: 'w-a', user: null, all_users: true });
      return allUsersVisible(tx);
    });
    expect(seen).toBe(true);
  });
});

describe('setAllUsersVisible', () => {
  it('opens and closes every user\'s personal rows for the rest of the transaction', async () => {
    const seen = await inTransaction(pool, async (tx) => {
      await enterScope(tx, { workspace_id: 'w-a', user: 'bob', all_users: false });
      const before = await visibleKeys(tx);
      await setAllUsersVisible(tx, true);
      const open = { keys: await visibleKeys(tx), flag: await allUsersVisible(tx) };
      await setAllUsersVisible(tx, false);
      return { before, open, after: await visibleKeys(tx) };
    });
    expect(seen).toEqual({ before: ['shared'], open: { keys: ['ann', 'shared'], flag: true }, after: ['shared'] });
  });
});

describe('enterSystemRole', () => {
  it('runs the rest of the transaction as canon_system, across workspaces', async () => {
    const seen = await inTransaction(pool, async (tx) => {
      await enterSystemRole(tx);
      return { role: await role(tx), keys: await visibleKeys(tx) };
    });
    expect(seen).toEqual({ role: 'canon_system', keys: ['ann', 'other', 'shared'] });
  });
});

describe('lockSubject', () => {
  it('makes transactions on one subject take turns, and leaves other subjects free', async () => {
    const release = await holding((tx) => lockSubject(tx, 'w-a', 's'));
    try {
      await expect(inTransaction(pool, (tx) => withLockTimeout(tx, 100, () => lockSubject(tx, 'w-a', 's')))).rejects.toBeInstanceOf(LockTimeoutError);
      await inTransaction(pool, (tx) => withLockTimeout(tx, 100, () => lockSubject(tx, 'w-b', 's')));
      await inTransaction(pool, (tx) => withLockTimeout(tx, 100, () => lockSubject(tx, 'w-a', 't')));
    } finally {
      await release();
    }
    await inTransaction(pool, (tx) => withLockTimeout(tx, 100, () => lockSubject(tx, 'w-a', 's')));
  });

  it('is the same lock when sent with BEGIN and the scope, whatever the subject holds', async () => {
    const subject = "it's a \\ \"quoted\" subject; DROP TABLE x; --";
    const tx = await pool.connect();
    try {
      await beginInScope(tx, { workspace_id: 'w-a', user: null, all_users: true }, lockSubjectStatement('w-a', subject));
      await expect(inTransaction(pool, (t) => withLockTimeout(t, 100, () => lockSubject(t, 'w-a', subject)))).rejects.toBeInstanceOf(LockTimeoutError);
      await inTransaction(pool, (t) => withLockTimeout(t, 100, () => lockSubject(t, 'w-a', 's')));
      await tx.query('COMMIT');
    } finally {
      tx.release();
    }
    await inTransaction(pool, (t) => withLockTimeout(t, 100, () => lockSubject(t, 'w-a', subject)));
  });
});

describe('lockPolicies', () => {
  it("waits for the transactions holding a subject's lock in its workspace, and they for it", async () => {
    const release = await holding((tx) => lockSubject(tx, 'w-a', 's'));
    try {
      await expect(inTransaction(pool, (tx) => withLockTimeout(tx, 100, () => lockPolicies(tx, 'w-a')))).rejects.toBeInstanceOf(LockTimeoutError);
      await inTransaction(pool, (tx) => withLockTimeout(tx, 100, () => lockPolicies(tx, 'w-b')));
      // Subjects still take turns only with themselves.
      await inTransaction(pool, (tx) => withLockTimeout(tx, 100, () => lockSubject(tx, 'w-a', 't')));
    } finally {
      await release();
    }
    const held = await holding((tx) => lockPolicies(tx, 'w-a'));
    try {
      await expect(inTransaction(pool, (tx) => withLockTimeout(tx, 100, () => lockSubject(tx, 'w-a', 's')))).rejects.toBeInstanceOf(LockTimeoutError);
      await inTransaction(pool, (tx) => withLockTimeout(tx, 100, () => lockSubject(tx, 'w-b', 's')));
    } finally {
      await held();
    }
  });
});

describe('closeWrites', () => {
  it("waits for a workspace's writers under way, keeps new ones out until it ends, and leaves other workspaces open", async () => {
    const writer = await pool.connect();
    try {
      await beginInScope(writer, { workspace_id: 'w-a', user: null, all_users: false }, writesOpenStatement('w-a'));
      // Two writers share the gate; an erasure waits for both.
      await inTransaction(pool, (tx) => withLockTimeout(tx, 100, () => tx.query(writesOpenStatement('w-a')).then(() => undefined)));
      await expect(inTransaction(pool, (tx) => withLockTimeout(tx, 100, () => closeWrites(tx, 'w-a')))).rejects.toBeInstanceOf(LockTimeoutError);
      await inTransaction(pool, (tx) => withLockTimeout(tx, 100, () => closeWrites(tx, 'w-b')));
      await writer.query('COMMIT');
    } finally {
      writer.release();
    }
    const release = await holding((tx) => closeWrites(tx, 'w-a'));
    try {
      await expect(inTransaction(pool, (tx) => withLockTimeout(tx, 100, () => tx.query(writesOpenStatement('w-a')).then(() => undefined)))).rejects.toBeInstanceOf(LockTimeoutError);
      // Not the lock of a subject named like it.
      await inTransaction(pool, (tx) => withLockTimeout(tx, 100, () => lockSubject(tx, 'writes', 'w-a')));
    } finally {
      await release();
    }
  });
});

describe('lockKeyBootstrap', () => {
  it('lets one transaction at a time mint the first key', async () => {
    const release = await holding(lockKeyBootstrap);
    try {
      await expect(inTransaction(pool, (tx) => withLockTimeout(tx, 100, () => lockKeyBootstrap(tx)))).rejects.toBeInstanceOf(LockTimeoutError);
    } finally {
      await release();
    }
    await inTransaction(pool, (tx) => withLockTimeout(tx, 100, () => lockKeyBootstrap(tx)));
  });
});

describe('withLockTimeout', () => {
  it('gives fn\'s answer, turns a lock wait past the timeout into LockTimeoutError, and lets other errors through', async () => {
    expect(await inTransaction(pool, (tx) => withLockTimeout(tx, 100, async () => 42))).toBe(42);
    const release = await holding((tx) => tx.query('LOCK TABLE policies IN ACCESS EXCLUSIVE MODE').then(() => undefined));
    try {
      const err = await inTransaction(pool, (tx) => withLockTimeout(tx, 50, () => tx.query('SELECT 1 FROM policies'))).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(LockTimeoutError);
      expect((err as LockTimeoutError).cause).toMatchObject({ code: '55P03' });
    } finally {
      await release();
    }
    await expect(inTransaction(pool, (tx) => withLockTimeout(tx, 50, () => tx.query('SELECT 1 FROM no_such_table')))).rejects.toMatchObject({ code: '42P01' });
  });
});

describe('inSnapshot', () => {
  it('sees the database as at its first read, and cannot write', async () => {
    const count = async (tx: Sql) => (await tx.query<{ n: number }>(`SELECT count(*)::int AS n FROM episodes WHERE workspace_id = 'w-a'`)).rows[0]!.n;
    const seen = await inSnapshot(pool, async (tx) => {
      const first = await count(tx);
      await logEpisodes(pool, 'w-a', [{ idempotency_key: 'later', subject: 's' }]);
      return [first, await count(tx)];
    });
    expect(seen[0]).toBe(seen[1]);
    expect(await count(pool)).toBe(seen[0]! + 1);
    await expect(inSnapshot(pool, (tx) => tx.query(`INSERT INTO workspaces (id) VALUES ('w-snapshot')`))).rejects.toThrow(/read-only/);
  });
});

describe('withStatementTimeout', () => {
  it("gives fn's answer, stops a statement past the timeout on the server as StatementTimeoutError, and lets other errors through", async () => {
    expect(await inTransaction(pool, (tx) => withStatementTimeout(tx, 1000, async () => 42))).toBe(42);
    const err = await inTransaction(pool, (tx) => withStatementTimeout(tx, 50, () => tx.query('SELECT pg_sleep(5)'))).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StatementTimeoutError);
    expect((err as StatementTimeoutError).cause).toMatchObject({ code: '57014' });
    await expect(inTransaction(pool, (tx) => withStatementTimeout(tx, 1000, () => tx.query('SELECT 1 FROM no_such_table')))).rejects.toMatchObject({ code: '42P01' });
    // For the rest of that transaction only: the next one has no such bound.
    await inTransaction(pool, (tx) => tx.query('SELECT pg_sleep(0.1)'));
  });
});

describe('withTimeoutSetting', () => {
  it('sets the timeout for the rest of the transaction only, and wraps only the SQLSTATE it is given', async () => {
    const shown = await inTransaction(pool, (tx) =>
      withTimeoutSetting(tx, 'lock_timeout', 1234, '55P03', (cause) => new Error('wrapped', { cause }), async () => (await tx.query<{ lock_timeout: string }>('SHOW lock_timeout')).rows[0]!.lock_timeout),
    );
    expect(shown).toBe('1234ms');
    expect((await pool.query<{ lock_timeout: string }>('SHOW lock_timeout')).rows[0]!.lock_timeout).not.toBe('1234ms');
    const err = await inTransaction(pool, (tx) => withTimeoutSetting(tx, 'statement_timeout', 20, '57014', () => new RangeError('stopped'), () => tx.query('SELECT pg_sleep(5)'))).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RangeError);
    // Another SQLSTATE passes as it came.
    const other = await inTransaction(pool, (tx) => withTimeoutSetting(tx, 'statement_timeout', 20, '55P03', () => new RangeError('no'), () => tx.query('SELECT pg_sleep(5)'))).catch((e: unknown) => e);
    expect(other).toMatchObject({ code: '57014' });
  });
});
