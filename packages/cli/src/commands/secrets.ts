import type { Command } from 'commander';
import type { Config, SecretScanFinding } from '@canon/runtime';
import type { Run } from '../lazy-port.js';
import { openPort } from '../lazy-port.js';
import { table } from './search.js';

interface ScanOptions {
  subject?: string;
  json?: boolean;
}

export function registerSecretsCommands(program: Command, run: Run, config: () => Config): void {
  const secrets = program.command('secrets').description('secrets in the stored log (ingest redacts new ones at the door)');
  secrets
    .command('scan')
    .description('list the episodes of the log that hold a detected secret, by id, source, key and rule — never the secret (owner, maintainer)')
    .option('--subject <subject>', 'only this subject')
    .option('--json', 'print JSON lines: one finding per line')
    .action(
      run(async (opts: ScanOptions) => {
        const port = await openPort(config());
        try {
          // Page by page: the server reads a bounded part of the log per answer.
          const findings: SecretScanFinding[] = [];
          let scanned = 0;
          let after: string | undefined;
          do {
            const page = await port.secrets({ ...(opts.subject ? { subject: opts.subject } : {}), ...(after ? { after } : {}) });
            scanned += page.scanned;
            if (opts.json) for (const f of page.findings) console.log(JSON.stringify(f));
            else findings.push(...page.findings);
            after = page.next ?? undefined;
          } while (after);
          if (opts.json) return;
          if (findings.length === 0) return console.log(`no secrets found in ${scanned} episodes`);
          const rows = findings.flatMap((f) => f.secrets.map((s) => [f.episode_id, f.source, f.idempotency_key, f.subject, s.rule, s.path]));
          console.log(table([['EPISODE', 'SOURCE', 'KEY', 'SUBJECT', 'RULE', 'FIELD'], ...rows]));
          console.log(`${findings.length} of ${scanned} episodes hold a secret; erase them with canon erase --subject S (or POST /v1/erasures)`);
        } finally {
          await port.close();
        }
      }),
    );
}
