export interface SearchQuery {
  workspaceId: string;
  q: string;
  /** Only this subject; null: every subject of the workspace. */
  subject: string | null;
  limit: number;
  includeHistory: boolean;
  /** Personal memories of this user are searched too; null: workspace memories only. */
  user: string | null;
  /** The instant "current" is judged at (ISO). */
  at: string;
}
