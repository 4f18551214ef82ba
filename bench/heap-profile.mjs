// node --expose-gc bench/heap-profile.mjs [calls]: what one pending call through `timeout(1000)` holds on
// the heap, object by object (needs the build: npm run build). It starts `calls` calls (default 20,000)
// whose operation never settles until the end, takes a V8 heap snapshot before and after, and prints the
// objects that grew by at least one per two calls, with their count and bytes per call. The bench's
// "100,000 concurrent timeouts, heap" row measures the same calls by heap size alone.
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import v8 from 'node:v8';
import { timeout } from '../dist/index.js';

if (typeof globalThis.gc !== 'function') throw new Error('run with node --expose-gc');
const n = Number(process.argv[2] ?? 20_000);

/** Count and self size of the snapshot's nodes, by type and name. */
function census(file) {
  const s = JSON.parse(readFileSync(file, 'utf8'));
  rmSync(file);
  const fields = s.snapshot.meta.node_fields;
  const types = s.snapshot.meta.node_types[0];
  const [iType, iName, iSize] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f));
  const out = new Map();
  for (let i = 0; i < s.nodes.length; i += fields.length) {
    const key = `${types[s.nodes[i + iType]]} ${s.strings[s.nodes[i + iName]].slice(0, 40)}`;
    const e = out.get(key) ?? { count: 0, bytes: 0 };
    e.count++;
    e.bytes += s.nodes[i + iSize];
    out.set(key, e);
  }
  return out;
}

/** Writes a heap snapshot after a full collection; read it with {@link census} once both are taken (reading holds memory). */
function snapshot(name) {
  globalThis.gc();
  return v8.writeHeapSnapshot(join(tmpdir(), `breakwater-${process.pid}-${name}.heapsnapshot`));
}

const t = timeout(1000);
let open;
const gate = new Promise((resolve) => (open = resolve));
await t.execute(async () => 1); // warm the code paths once
const calls = new Array(n).fill(undefined);
const beforeFile = snapshot('before');
for (let i = 0; i < n; i++) calls[i] = t.execute(() => gate);
const afterFile = snapshot('after');
const before = census(beforeFile);
const after = census(afterFile);
const rows = [];
for (const [key, a] of after) {
  const b = before.get(key) ?? { count: 0, bytes: 0 };
  if (a.count - b.count >= n / 2) rows.push({ object: key, perCall: (a.count - b.count) / n, bytesPerCall: (a.bytes - b.bytes) / n });
}
rows.sort((x, y) => y.bytesPerCall - x.bytesPerCall);
console.log(`node ${process.version}, ${n} pending calls through timeout(1000)\n`);
console.log(`${'object (V8 type and name)'.padEnd(48)} ${'per call'.padStart(8)} ${'B / call'.padStart(9)}`);
for (const r of rows) console.log(`${r.object.padEnd(48)} ${r.perCall.toFixed(2).padStart(8)} ${r.bytesPerCall.toFixed(0).padStart(9)}`);
console.log(`${'total'.padEnd(48)} ${''.padStart(8)} ${rows.reduce((s, r) => s + r.bytesPerCall, 0).toFixed(0).padStart(9)}`);
open(1);
await Promise.all(calls);
