// Runs every example against its own local servers; fails if any fails.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';

const dir = new URL('.', import.meta.url).pathname;
let failed = 0;
for (const file of readdirSync(dir).filter((f) => f.endsWith('.mjs') && f !== 'run-all.mjs').sort()) {
  const r = spawnSync(process.execPath, [dir + file], { encoding: 'utf8', timeout: 60_000 });
  const ok = r.status === 0;
  if (!ok) failed++;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${file}`);
  for (const line of `${r.stdout}${ok ? '' : r.stderr}`.trim().split('\n')) if (line) console.log(`     ${line}`);
}
console.log(`${readdirSync(dir).filter((f) => f.endsWith('.mjs')).length - 1 - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
