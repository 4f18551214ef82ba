import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const script = fileURLToPath(new URL('../child.mjs', import.meta.url));

/** Runs bench/child.mjs in a fresh `node --expose-gc` and returns its JSON answer. */
export function inChild(kind, subject, count) {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--expose-gc', script, kind, subject, String(count)], { maxBuffer: 1 << 20 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${kind} ${subject}: ${error.message}\n${stderr}`));
      else resolve(JSON.parse(stdout.trim().split('\n').pop()));
    });
  });
}
