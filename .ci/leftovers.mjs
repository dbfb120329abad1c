// Fails when a process started by the tests outlived them. Such processes are found by the marker
// that `.ci/run` puts in the tests' environment (every child inherits it): a worker, an embedded
// PostgreSQL or a `canon start` still alive after the run. A few seconds are allowed for
// processes that are still shutting down; whatever remains is listed, then killed.
import fs from 'node:fs';

const marker = process.argv[2];
if (!marker) {
  console.error('usage: node .ci/leftovers.mjs <marker>');
  process.exit(2);
}
if (!fs.existsSync('/proc/self/environ')) {
  console.log('leftovers: no /proc on this machine, not checked');
  process.exit(0);
}
const needle = `CANON_TEST_RUN=${marker}`;

function marked() {
  const found = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      // A zombie's environment reads as empty: it has already ended.
      if (!fs.readFileSync(`/proc/${name}/environ`, 'utf8').split('\0').includes(needle)) continue;
      const cmd = fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
      found.push({ pid: Number(name), cmd });
    } catch {
      // Gone between the listing and the read.
    }
  }
  return found;
}

let left = marked();
for (let waited = 0; left.length > 0 && waited < 10_000; waited += 250) {
  await new Promise((r) => setTimeout(r, 250));
  left = marked();
}
if (left.length === 0) {
  console.log('leftovers: no process of the tests is still running');
  process.exit(0);
}
console.error(`leftovers: ${left.length} process(es) the tests started are still running:`);
for (const p of left) console.error(`  ${p.pid} ${p.cmd.slice(0, 200)}`);
for (const p of left) {
  try {
    process.kill(p.pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}
process.exit(1);
