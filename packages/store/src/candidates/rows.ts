/** A memory as the candidate search reads it: its key, and the words of a note. */
export interface MemoryShapeRow {
  id: string;
  key: string;
  /** The first value of a note (its words); null for any other predicate. */
  note_text: string | null;
  /** See `memories.told_as_change`. */
  told_as_change: boolean;
  /** See `memories.document_lineages`. */
  document_lineages: string[];
  candidates: CandidateRefRow[];
}

export interface CandidateRefRow {
  memory_id: string;
  score: number;
  reason: string;
  opposite?: true;
  proposed?: { same: boolean; source: string; idempotency_key: string; reason: string };
}
