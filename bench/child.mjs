// Measures one subject in a fresh process (run with node --expose-gc) and
// prints one JSON line. Started by bench/lib/children.mjs.
//   node --expose-gc bench/child.mjs memory <subject> <instances>
//   node --expose-gc bench/child.mjs concurrent <subject> <calls>
import { cockatielBreakers, cockatielTimeoutPolicy, op, opossum, ourBreakers, ourTimeout } from './lib/subjects.mjs';

const [kind, subject, count] = process.argv.slice(2);
const n = Number(count);
if (typeof globalThis.gc !== 'function') throw new Error('run with node --expose-gc');

function heap() {
  globalThis.gc();
  globalThis.gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

/** Makes a breaker of `subject` and returns a function calling it once. */
const makers = {
  ...Object.fromEntries(Object.entries(ourBreakers).map(([k, make]) => [k, () => { const b = make(); return [b, () => b.execute(op)]; }])),
  ...Object.fromEntries(Object.entries(cockatielBreakers).map(([k, make]) => [k, () => { const b = make(); return [b, () => b.execute(op)]; }])),
  // opossum as users get it: its defaults (a 10 s timeout per call, rolling stats with their timers).
  opossum: () => { const b = opossum(op, {}); return [b, () => b.fire()]; },
};

async function memory() {
  const make = makers[subject];
  if (make === undefined) throw new Error(`unknown subject ${subject}`);
  const keep = new Array(n).fill(undefined);
  const before = heap();
  for (let i = 0; i < n; i++) {
    const [b, call] = make();
    await call();
    keep[i] = b;
  }
  const after = heap();
  return { bytesPerInstance: (after - before) / n, kept: keep.length };
}

async function concurrent() {
  const t = subject === 'breakwater' ? ourTimeout() : subject === 'cockatiel' ? cockatielTimeoutPolicy() : undefined;
  if (t === undefined) throw new Error(`unknown subject ${subject}`);
  let open;
  const gate = new Promise((resolve) => (open = resolve));
  const pending = () => gate;
  await t.execute(op); // warm the code paths once
  const calls = new Array(n).fill(undefined);
  const before = heap();
  // CPU time (the machine is shared; wall time would count other processes' slices).
  const t0 = process.cpuUsage();
  for (let i = 0; i < n; i++) calls[i] = t.execute(pending);
  const used = process.cpuUsage(t0);
  const startMs = (used.user + used.system) / 1e3;
  const after = heap();
  open(1);
  await Promise.all(calls);
  return { startMs, heapBytes: after - before };
}

const result = kind === 'memory' ? await memory() : kind === 'concurrent' ? await concurrent() : undefined;
if (result === undefined) throw new Error(`unknown kind ${kind}`);
process.stdout.write(`${JSON.stringify(result)}\n`);
process.exit(0); // opossum's timers would keep the process alive
