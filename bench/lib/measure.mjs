import { measure } from 'mitata';
import { mitataOptions, quick, rounds } from './config.mjs';

/**
 * mitata's clock, replaced by this process's CPU time (user + system, all
 * threads, GC included) in ns. The machine is shared: wall time also counts
 * the slices other processes take, which made medians jump 5x between runs.
 */
export function cpuNow() {
  const u = process.cpuUsage();
  return (u.user + u.system) * 1e3;
}

/** Median of numbers (the mean of the middle two for an even count). */
export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** mitata's median nanoseconds per call of `fn` (awaited when it returns a promise). */
export async function nsPerCall(fn) {
  // Warm up first, so that mitata sees a fast first call; batching is forced
  // anyway (the CPU clock ticks in microseconds: only batches resolve ns).
  for (let i = 0; i < (quick ? 10 : 2000); i++) await fn();
  const stats = await measure(fn, { ...mitataOptions, now: cpuNow, batch_threshold: Infinity });
  return stats.p50;
}

/**
 * Measures every subject once per round, in the same order each round, so
 * that drift in machine load hits all of them alike. Returns, per subject,
 * the list of per-round ns/call.
 */
export async function roundsOf(subjects) {
  const out = Object.fromEntries(Object.keys(subjects).map((k) => [k, []]));
  for (let r = 0; r < rounds; r++) {
    for (const [name, fn] of Object.entries(subjects)) {
      await settle();
      out[name].push(await nsPerCall(fn));
    }
  }
  return out;
}

/**
 * Lets the event loop turn and collects garbage before a measurement. A
 * measurement is one long run of microtasks: until it ends, V8 keeps alive
 * every object a WeakRef was made for during it (Node's AbortSignal and
 * EventTarget make some), and timers cannot fire. Without a turn, what one
 * subject left behind would be collected while the next one is measured.
 */
export async function settle() {
  await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setTimeout(resolve, 1));
  globalThis.gc?.();
}

/** Per-round `a[i] - b[i]`: overhead above a baseline measured in the same round. */
export function minus(a, b) {
  return a.map((x, i) => x - b[i]);
}
