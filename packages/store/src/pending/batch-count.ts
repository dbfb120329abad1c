/**
 * Over a `per_subject` window of the rows a statement marks as waiting: on one of each subject's
 * rows, how many there are; null on the others. A backlog is summed from these rows, one a batch
 * (canon_pending_batches_at_least, migration 0037), instead of counted row by row.
 */
export const BATCH_COUNT = `CASE WHEN row_number() OVER per_subject = 1 THEN count(*) OVER per_subject END`;
