import type { DecisionCase, Holds, Statement, Write } from './cases.js';

/** What a system shows for one key after the episode: the values it puts forward, and whether it flags a dispute. */
export interface KeyAnswer {
  values: string[];
  flagged: boolean;
}

export interface DecisionSystem {
  readonly name: string;
  readonly description: string;
  /** Replays the case (prior writes, then the episode) and answers every key of `after`. */
  decide(c: DecisionCase): Promise<KeyAnswer[]>;
}

/** A key as the cases name it: predicate and qualifiers. */
export function keyName(k: Pick<Holds | Statement, 'predicate' | 'qualifiers'>): string {
  const q = Object.entries(k.qualifiers ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify([k.predicate.normalize('NFC').trim(), q]);
}

export function valueText(v: unknown): string {
  return String(v).normalize('NFC').trim();
}

/** Every write of a case in the order it arrives: the prior state, then the episode. */
export function writes(c: DecisionCase): Write[] {
  return [...c.prior, c.episode];
}

/** Last write wins: each key holds whatever was written to it last, from anyone, with any words. */
export const lastWriteWins: DecisionSystem = {
  name: 'last write wins',
  description: 'each key holds the value of the last write that named it (the common key-value memory)',
  async decide(c) {
    const held = new Map<string, string>();
    for (const w of writes(c)) for (const s of w.claims) held.set(keyName(s), valueText(s.value));
    return c.after.map((h) => {
      const v = held.get(keyName(h));
      return { values: v === undefined ? [] : [v], flagged: false };
    });
  },
};

/** Append only: every value ever written is recalled, nothing is replaced and nothing flagged. */
export const appendOnly: DecisionSystem = {
  name: 'append only',
  description: 'every value ever written to a key is recalled side by side (a log searched at read time)',
  async decide(c) {
    const held = new Map<string, Set<string>>();
    for (const w of writes(c)) {
      for (const s of w.claims) {
        const k = keyName(s);
        if (!held.has(k)) held.set(k, new Set());
        held.get(k)!.add(valueText(s.value));
      }
    }
    return c.after.map((h) => ({ values: [...(held.get(keyName(h)) ?? [])], flagged: false }));
  },
};
