export interface SubjectRow {
  workspace_id: string;
  subject: string;
  state_hash: string;
  compiler_version: string;
  policy_fingerprint: string;
  memories: number;
  open_conflicts: number;
  /** Per owner, the sum of the digests of their personal memories; null before migration 0042's first compile. */
  personal_sums: Record<string, string> | null;
}
