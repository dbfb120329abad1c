export interface SubjectRow {
  workspace_id: string;
  subject: string;
  state_hash: string;
  compiler_version: string;
  policy_fingerprint: string;
  memories: number;
  open_conflicts: number;
}
