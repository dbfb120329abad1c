import type { Role } from '@canon/core';
import type { apiKeys } from '../schema.js';

/** A key as the store hands it out: its row without the hash; `sources` are the reserved sources it may write (design §2). */
export type ApiKeyRecord = Omit<typeof apiKeys.$inferSelect, 'key_hash' | 'role'> & { role: Role };

export const COLUMNS = 'id, workspace_id, role, user_id, prefix, label, sources, created_at, revoked_at';
