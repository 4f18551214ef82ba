// Success-path cost of the breakers and heap bytes per breaker.
// Run: npx tsup && node --expose-gc bench/breakers.mjs
import { breaker, breakerRegistry, circuitBreaker, keyedBreaker, sreBreaker } from '../dist/index.js';

const N = 2_000_000;
let t = 1_700_000_000_000; // a clock for the memory case that moves 300 ms per read
const fn = () => 1;
const afn = async () => 1;

function timeSync(label, body) {
  for (let i = 0; i < N / 10; i++) body(); // warm up
  const t = process.hrtime.bigint();
  for (let i = 0; i < N; i++) body();
  const ns = Number(process.hrtime.bigint() - t) / N;
  console.log(`${label.padEnd(44)} ${ns.toFixed(1).padStart(7)} ns/call`);
  return ns;
}

async function timeAsync(label, body) {
  for (let i = 0; i < N / 10; i++) await body();
  const t = process.hrtime.bigint();
  for (let i = 0; i < N; i++) await body();
  const ns = Number(process.hrtime.bigint() - t) / N;
  console.log(`${label.padEnd(44)} ${ns.toFixed(1).padStart(7)} ns/call`);
  return ns;
}

const def = breaker();
const sre = sreBreaker();
const cb = circuitBreaker({ trip: 'errorRatio' });
const slow = circuitBreaker({ trip: 'slowCallRatio' });
const consecutive = circuitBreaker({ trip: 'consecutiveFailures' });

console.log(`node ${process.version}, ${N.toLocaleString()} calls each\n`);
timeSync('bare fn()', fn);
timeSync('Date.now()', Date.now);
timeSync('breaker (default) allow()+success()', () => def.allow().success());
timeSync('sreBreaker allow()+success()', () => sre.allow().success());
timeSync('circuitBreaker errorRatio allow()+success()', () => cb.allow().success());
timeSync('circuitBreaker slowCallRatio allow()+success()', () => slow.allow().success());
timeSync('circuitBreaker consecutive allow()+success()', () => consecutive.allow().success());
// The same with a clock whose now() is free, to separate the breaker's own cost from Date.now().
const frozen = { now: () => 1_700_000_000_000, setTimeout, clearTimeout };
const sreF = sreBreaker({ clock: frozen });
const cbF = circuitBreaker({ trip: 'errorRatio', clock: frozen });
timeSync('  same, free clock: sreBreaker', () => sreF.allow().success());
timeSync('  same, free clock: circuitBreaker errorRatio', () => cbF.allow().success());
console.log();
await timeAsync('bare await fn()', afn);
await timeAsync('breaker (default) execute(fn)', () => def.execute(afn));
await timeAsync('sreBreaker execute(fn)', () => sre.execute(afn));
await timeAsync('circuitBreaker errorRatio execute(fn)', () => cb.execute(afn));
await timeAsync('circuitBreaker slowCallRatio execute(fn)', () => slow.execute(afn));
const keyed = keyedBreaker((ctx) => ctx.meta.host);
const meta = { meta: { host: 'a' } };
await timeAsync('keyedBreaker (default) execute(fn, { meta })', () => keyed.execute(afn, meta));

function heapPerBreaker(label, make) {
  const M = 100_000;
  const keep = new Array(M);
  globalThis.gc();
  globalThis.gc();
  const before = process.memoryUsage();
  for (let i = 0; i < M; i++) {
    const b = make(i);
    b.allow().success();
    if (b.window.s0 < 1) throw new Error('expected a recorded call');
    keep[i] = b;
  }
  globalThis.gc();
  globalThis.gc();
  const after = process.memoryUsage();
  const heap = (after.heapUsed - before.heapUsed) / M;
  const buffers = (after.arrayBuffers - before.arrayBuffers) / M;
  console.log(`${label.padEnd(44)} ${heap.toFixed(0).padStart(5)} B heap + ${buffers.toFixed(0)} B array buffers per breaker`);
  return keep;
}

console.log();
if (typeof globalThis.gc !== 'function') {
  console.log('run with node --expose-gc for the memory figures');
} else {
  heapPerBreaker('100k breaker() (default), one call each', () => breaker());
  heapPerBreaker('100k sreBreaker(), one call each', () => sreBreaker());
  heapPerBreaker('100k circuitBreaker(errorRatio), one call each', () => circuitBreaker({ trip: 'errorRatio' }));
  const reg = breakerRegistry();
  heapPerBreaker('100k registry keys (default), one call each', (i) => reg.get(`key-${i}`));
  const reg2 = breakerRegistry({ defaults: { strategy: 'errorRatio' } });
  heapPerBreaker('100k registry keys (errorRatio), one call each', (i) => reg2.get(`key-${i}`));
  // A breaker whose calls spread over several buckets allocates its window arrays.
  heapPerBreaker('100k sreBreaker(), calls in 2 buckets (arrays)', () => {
    const b = sreBreaker({ clock: { now: () => (t += 300), setTimeout, clearTimeout } });
    b.allow().success();
    b.allow().success(); // a second bucket while the first is visible: the window allocates its arrays
    if (b.window.counts === undefined) throw new Error('expected window arrays');
    return b;
  });
}
