import { above, array, atLeast, defineRule, intAtLeast, integer, nullable, number, object, oneOf, type PathPart, predicate, type Rule, tuple } from '../../lib/options.js';

/** Which thrown values count as failures; a throw inside it counts as yes. */
export const handleRule: Rule<(error: unknown) => boolean> = predicate;

/** Which results count as failures (e.g. an HTTP 503 response). */
export const handleResultRule: Rule<(result: unknown) => boolean> = predicate;

/** A finite number. */
export const finite = (message: string): Rule<number> => number(message);

/** A clock time (the clock's epoch ms) in a snapshot. */
export const clockTime: Rule<number> = /* @__PURE__ */ defineRule(() => number('expected a finite clock time'));

/** A clock time in a snapshot, or `null` for none. */
export const clockTimeOrNull: Rule<number | null> = /* @__PURE__ */ defineRule(() => nullable(number('expected a finite clock time or null')));

/** A breaker's state in a snapshot. */
export const breakerStateRule = /* @__PURE__ */ defineRule(() => oneOf(['closed', 'open', 'half-open'], "expected 'closed', 'open' or 'half-open'"));

const RATIO = 'expected a ratio in [0, 1]';
/** A ratio in [0, 1]. */
export const ratioRule: Rule<number> = /* @__PURE__ */ defineRule(() => number(RATIO, atLeast(0, RATIO), (n) => (n <= 1 ? undefined : RATIO)));

/** An integer >= `min`. */
export const intRule = (min: number): Rule<number> => intAtLeast(min);

/** A problem a cross-field rule found: where, and the rule in words. */
export interface Problem {
  /** Where, inside the options. */
  readonly path: readonly PathPart[];
  /** The rule broken, in words. */
  readonly message: string;
}

/** A problem at `buckets` unless `buckets` divides `windowMs` into whole milliseconds. */
export function bucketProblems(o: { windowMs: number; buckets: number }): Problem[] {
  return Number.isInteger(o.windowMs / o.buckets) ? [] : [{ path: ['buckets'], message: `must divide windowMs (${o.windowMs}) into whole milliseconds` }];
}

/** A problem unless the snapshot's window has the grid the options give (`size` = buckets, `bucketMs` = windowMs / buckets). */
export function snapshotGridProblems(o: { windowMs: number; buckets: number; initialState?: { window: { size: number; bucketMs: number } } | undefined }): Problem[] {
  const w = o.initialState?.window;
  if (w === undefined) return [];
  if (w.size !== o.buckets) return [{ path: ['initialState', 'window', 'size'], message: `must equal buckets (${o.buckets})` }];
  if (w.bucketMs !== o.windowMs / o.buckets) return [{ path: ['initialState', 'window', 'bucketMs'], message: `must equal windowMs / buckets (${o.windowMs / o.buckets})` }];
  return [];
}

/** The internal consistency of a rolling window's snapshot: sums and counts agree. */
export function windowSnapshotProblems(w: { head: number; size: number; sums: readonly number[]; counts: readonly number[] | null }): Problem[] {
  if (w.counts === null) {
    return w.head === -1 && (w.sums[0] !== 0 || w.sums[1] !== 0 || w.sums[2] !== 0) ? [{ path: ['sums'], message: 'must be 0 before any record (head -1)' }] : [];
  }
  if (w.counts.length !== w.size * 3) return [{ path: ['counts'], message: `expected ${w.size * 3} counts (3 per bucket)` }];
  const out: Problem[] = [];
  for (let f = 0; f < 3; f++) {
    let sum = 0;
    for (let i = f; i < w.counts.length; i += 3) sum += w.counts[i]!;
    if (sum !== w.sums[f]) out.push({ path: ['sums', f], message: 'must equal the sum of the bucket counts' });
  }
  return out;
}

const count = /* @__PURE__ */ intAtLeast(0);

/** A rolling window's snapshot (`lib/window.ts` `WindowSnapshot`), checked for internal consistency. */
export const windowSnapshotRule = /* @__PURE__ */ defineRule(() => object(
  {
    origin: clockTime,
    bucketMs: number('expected a number > 0', above(0, 'expected a number > 0')),
    size: intAtLeast(1),
    head: integer('expected an integer >= -1', atLeast(-1, 'expected an integer >= -1')),
    sums: tuple([count, count, count]),
    counts: nullable(array(count)),
  },
  (w, add) => {
    for (const p of windowSnapshotProblems(w)) add(p.message, p.path);
  },
));
