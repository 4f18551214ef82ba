import type { Clock } from '../../../lib/clock.js';

/** An operation that takes `ms` of `clock` time, then succeeds with `value` or throws `error`. */
export function work<T>(clock: Clock, ms: number, outcome: { value: T } | { error: unknown }): () => Promise<T> {
  return () =>
    new Promise<T>((resolve, reject) => {
      clock.setTimeout(() => ('error' in outcome ? reject(outcome.error) : resolve(outcome.value)), ms);
    });
}
