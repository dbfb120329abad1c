import type { Config, Runtime } from '@canon/runtime';
import { localRuntime } from '../port.js';
import type { Role } from '@canon/core';

async function withRuntime<T>(config: Config, fn: (rt: Runtime) => Promise<T>): Promise<T> {
  // Keys are managed on the database directly: on an embedded CANON_HOME with a running
  // server this attaches to its PostgreSQL rather than starting a second one.
  const runtime = await localRuntime(config, { queue: false }, 'canon keys');
  try {
    return await fn(runtime);
  } finally {
    await runtime.close();
  }
}

export async function keysCreate(
  config: Config,
  opts: { workspace: string; role: Role; user?: string; label?: string; source?: string[]; json?: boolean },
): Promise<void> {
  const created = await withRuntime(config, (rt) =>
    rt.createKey({ workspace: opts.workspace, role: opts.role, user: opts.user, label: opts.label, sources: opts.source }),
  );
  if (opts.json) {
    console.log(JSON.stringify({ key: created.key, ...created.record }));
    return;
  }
  console.log(created.key);
  console.error(`key ${created.record.id}: workspace ${created.record.workspace_id}, role ${created.record.role}` +
    `${created.record.user_id ? `, user ${created.record.user_id}` : ''}` +
    `${created.record.sources.length > 0 ? `, sources ${created.record.sources.join(', ')}` : ''} — shown once, store it now`);
}

export async function keysList(config: Config, opts: { workspace?: string; json?: boolean }): Promise<void> {
  const keys = await withRuntime(config, (rt) => rt.listKeys(opts.workspace));
  if (opts.json) {
    console.log(JSON.stringify(keys));
    return;
  }
  if (keys.length === 0) {
    console.log(`no keys${opts.workspace ? ` in workspace ${opts.workspace}` : ''} (create one with \`canon keys create\`)`);
    return;
  }
  console.table(
    keys.map((k) => ({
      id: k.id,
      workspace: k.workspace_id,
      role: k.role,
      user: k.user_id ?? '',
      sources: k.sources.join(','),
      prefix: `${k.prefix}…`,
      created: k.created_at,
      revoked: k.revoked_at ?? '',
    })),
  );
}

export async function keysRevoke(config: Config, id: string): Promise<void> {
  const key = await withRuntime(config, (rt) => rt.revokeKey(id));
  console.log(`revoked ${key.id} (${key.workspace_id}, ${key.role}) at ${key.revoked_at}`);
}
