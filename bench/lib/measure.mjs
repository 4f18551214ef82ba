import { measure } from 'mitata';
import { mitataOptions, rounds } from './config.mjs';

/** Median of numbers (the mean of the middle two for an even count). */
export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** mitata's median nanoseconds per call of `fn` (awaited when it returns a promise). */
export async function nsPerCall(fn) {
  const stats = await measure(fn, { ...mitataOptions });
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
    for (const [name, fn] of Object.entries(subjects)) out[name].push(await nsPerCall(fn));
  }
  return out;
}

/** Per-round `a[i] - b[i]`: overhead above a baseline measured in the same round. */
export function minus(a, b) {
  return a.map((x, i) => x - b[i]);
}
