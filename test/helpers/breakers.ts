import type { PolicyEvent } from '../../api/index.js';

/** Clock start for every breaker test: well above 0, like real epoch times. */
export const T0 = 1_700_000_000_000;

/** A random source that returns `values` in order, then `rest`, counting draws. */
export function queueRandom(values: number[], rest = 0.999_999): (() => number) & { draws: number } {
  const fn = (() => {
    fn.draws++;
    return values.length > 0 ? values.shift()! : rest;
  }) as (() => number) & { draws: number };
  fn.draws = 0;
  return fn;
}

/** Collects every event of `source` into an array. */
export function collect(source: { events$: import('rxjs').Observable<PolicyEvent> }): PolicyEvent[] {
  const events: PolicyEvent[] = [];
  source.events$.subscribe((e) => events.push(e));
  return events;
}

/** The largest double below `x`. */
export function below(x: number): number {
  const f = new Float64Array([x]);
  const i = new BigInt64Array(f.buffer);
  i[0] = i[0]! - 1n;
  return f[0]!;
}
