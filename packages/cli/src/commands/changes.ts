import type { Command } from 'commander';
import type { ChangeEvent, Config } from '@canon/runtime';
import type { Run } from '../lazy-port.js';
import { openPort } from '../lazy-port.js';
import { table } from './search.js';

interface ChangesOptions {
  after?: string;
  follow?: boolean;
  subject?: string;
  predicate?: string;
  json?: boolean;
}

interface WebhookAddOptions {
  subject?: string;
  predicate?: string;
  json?: boolean;
}

const sideText = (s: ChangeEvent['before']) => (s === null ? '-' : `${s.status}${s.values.length > 0 ? ` ${s.values.map((v) => JSON.stringify(v)).join(' | ')}` : ''}`);

/** How long `--follow` waits before asking again when it has read everything. */
const FOLLOW_POLL_MS = 1000;

export function registerChangeCommands(program: Command, run: Run, config: () => Config): void {
  program
    .command('changes')
    .description('what compiles changed, in commit order (the change feed): memory, old and new value and status, the episode that caused it')
    .option('--after <cursor>', 'start behind this cursor (a line’s cursor, or the last one printed)')
    .option('--follow', 'keep printing changes as compiles make them, until interrupted')
    .option('--subject <subject>', 'only this subject')
    .option('--predicate <predicate>', 'only this predicate')
    .option('--json', 'print JSON lines: one change per line (the same object GET /v1/changes and webhooks carry)')
    .action(
      run(async (opts: ChangesOptions) => {
        const port = await openPort(config());
        try {
          let after = opts.after;
          let header = !opts.json;
          for (;;) {
            const page = await port.changes({ ...(after !== undefined ? { after } : {}), ...(opts.subject ? { subject: opts.subject } : {}), ...(opts.predicate ? { predicate: opts.predicate } : {}), limit: 500 });
            if (opts.json) for (const c of page.changes) console.log(JSON.stringify(c));
            else if (page.changes.length > 0) {
              const rows = page.changes.map((c) => [c.cursor, c.subject, c.key, c.change, sideText(c.before), sideText(c.after)]);
              console.log(table(header ? [['CURSOR', 'SUBJECT', 'KEY', 'CHANGE', 'BEFORE', 'AFTER'], ...rows] : rows));
              header = false;
            }
            after = page.next;
            if (page.changes.length === 500) continue;
            if (!opts.follow) break;
            await new Promise((resolve) => setTimeout(resolve, FOLLOW_POLL_MS));
          }
          if (!opts.json && header) console.log('no changes');
        } finally {
          await port.close();
        }
      }),
    );

  const webhooks = program.command('webhooks').description('the change feed POSTed to URLs, signed, retried and dead-lettered (owner, maintainer)');
  webhooks
    .command('add <url>')
    .description('add a webhook bound to this key: it delivers what the key may see, from now on; prints the secret once')
    .option('--subject <subject>', 'only changes of this subject')
    .option('--predicate <predicate>', 'only changes of this predicate')
    .option('--json', 'print the answer as JSON')
    .action(
      run(async (url: string, opts: WebhookAddOptions) => {
        const port = await openPort(config());
        try {
          const created = await port.createWebhook({ url, ...(opts.subject ? { subject: opts.subject } : {}), ...(opts.predicate ? { predicate: opts.predicate } : {}) });
          if (opts.json) return console.log(JSON.stringify(created));
          console.log(`webhook ${created.webhook.id} → ${created.webhook.url}`);
          console.log(`secret (shown once; verify Canon-Signature with it): ${created.secret}`);
        } finally {
          await port.close();
        }
      }),
    );
  webhooks
    .command('list')
    .description('the workspace’s webhooks: deliveries, failed attempts, dead letters, the last error')
    .option('--json', 'print JSON')
    .action(
      run(async (opts: { json?: boolean }) => {
        const port = await openPort(config());
        try {
          const list = await port.webhooks();
          if (opts.json) return console.log(JSON.stringify({ webhooks: list }));
          if (list.length === 0) return console.log('no webhooks');
          const rows = list.map((w) => [
            w.id,
            w.url,
            [w.subject && `subject=${w.subject}`, w.predicate && `predicate=${w.predicate}`].filter(Boolean).join(' ') || '*',
            w.active ? 'active' : 'key revoked',
            String(w.delivered),
            String(w.failed_attempts),
            String(w.dead_letters),
            w.last_error ?? '',
          ]);
          console.log(table([['ID', 'URL', 'FILTER', 'STATE', 'DELIVERED', 'FAILED', 'DEAD', 'LAST ERROR'], ...rows]));
        } finally {
          await port.close();
        }
      }),
    );
  webhooks
    .command('remove <id>')
    .description('remove a webhook; deliveries already queued are dropped')
    .action(
      run(async (id: string) => {
        const port = await openPort(config());
        try {
          await port.removeWebhook(id);
          console.log(`removed webhook ${id}`);
        } finally {
          await port.close();
        }
      }),
    );
}
