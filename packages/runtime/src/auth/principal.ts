import type { Role } from '@canon/core';

/** Who is calling: decided by the API key alone, never by a request body. */
export interface Principal {
  readonly workspace_id: string;
  readonly role: Role;
  readonly user: string | null;
  readonly key_id: string;
  /**
   * The reserved sources (a connector's: `github`, `git`, `workspace`, …) this key may write,
   * besides every unreserved one (design §2). Absent: none.
   */
  readonly sources?: readonly string[];
}
