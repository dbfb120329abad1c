import path from 'node:path';
import { CASES_DIR, loadCaseFile, OUTCOMES } from './cases.js';

/** `tsx bench/eval/decisions/check.ts cases-a.jsonl`: validates one case file and counts its classes. */
for (const file of process.argv.slice(2)) {
  const cases = loadCaseFile(path.resolve(CASES_DIR, file));
  const by = Object.fromEntries(OUTCOMES.map((o) => [o, cases.filter((c) => c.expected === o).length]));
  console.log(`${file}: ${cases.length} cases`, by);
}
