import fs from 'node:fs';
import path from 'node:path';
import type { Runtime } from '@canon/runtime';
import { RESULTS, withServedRuntime } from '../../harness.js';
import { CASES_DIR, loadCases } from './cases.js';
import { canonDecisions } from './canon.js';
import { evaluateDecisions } from './evaluate.js';
import { decisionsMarkdown } from './report.js';
import { appendOnly, lastWriteWins } from './systems.js';

const SECTION = '## Write-side decisions';

/** The explanations of Canon's remaining wrong decisions, kept by hand beside the cases. */
function explanations(): string[] {
  const file = path.join(CASES_DIR, 'where-canon-is-wrong.md');
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim().split('\n') : [];
}

/** Every case through Canon (over HTTP on `url`) and the baselines; writes decisions.json, returns the Markdown section. */
export async function runDecisions(runtime: Runtime, url: string, log: (msg: string) => void = console.error): Promise<string> {
  const cases = loadCases();
  const run = Date.now().toString(36);
  const canon = canonDecisions(
    {
      request: (p, init) => fetch(`${url}${p}`, init),
      createKey: async (input) => (await runtime.createKey(input)).key,
    },
    run,
  );
  const reports = await evaluateDecisions([canon, lastWriteWins, appendOnly], cases, log);
  fs.mkdirSync(RESULTS, { recursive: true });
  fs.writeFileSync(
    path.join(RESULTS, 'decisions.json'),
    `${JSON.stringify({ benchmark: 'decisions', cases: cases.length, systems: reports, measured_at: new Date().toISOString() }, null, 2)}\n`,
  );
  return decisionsMarkdown(reports, { cases: cases.length, explanations: explanations() });
}

/** Puts the decisions section at the end of eval.md, replacing the one there. */
export function writeSection(markdown: string): void {
  const file = path.join(RESULTS, 'eval.md');
  const before = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '# Correctness evaluation\n';
  const at = before.indexOf(SECTION);
  const head = (at === -1 ? before : before.slice(0, at)).trimEnd();
  fs.writeFileSync(file, `${head}\n\n${markdown.trimEnd()}\n`);
}

async function main() {
  await withServedRuntime('canon_bench_decisions', async (runtime, url) => {
    const md = await runDecisions(runtime, url);
    writeSection(md);
    console.log(md);
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await main();
  process.exit(0);
}
