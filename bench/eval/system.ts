import type { FactTruth, GeneratedEpisode } from './workload.js';

/** One recalled value, as a system puts it in front of an agent asking about a fact. */
export interface RecalledValue {
  value: string;
  conditions: string[];
  /** The fact the stored record is about (known to the evaluator, not used by the system). */
  fact: string;
}

export interface Answer {
  values: RecalledValue[];
  /** The system says the fact is disputed (needs verification). */
  flagged: boolean;
}

/**
 * A memory system under evaluation. One instance holds one run (one arrival order); the
 * evaluator creates a fresh one per order.
 */
export interface MemorySystem {
  readonly name: string;
  /** One arrival: a single episode, or several written concurrently (racing writers). */
  arrive(episodes: readonly GeneratedEpisode[]): Promise<void>;
  /** Called once after the last arrival (Canon compiles what is still pending). */
  settle(): Promise<void>;
  answer(fact: FactTruth, at: string): Promise<Answer>;
  /** A digest of the whole stored state, to compare arrival orders. */
  stateDigest(): Promise<string>;
  /** Facts (ids) whose stored record was replaced by a record of another fact. */
  mergedAway(): Set<string>;
  close(): Promise<void>;
}

export interface SystemFactory {
  readonly name: string;
  readonly description: string;
  create(run: string): Promise<MemorySystem>;
}
