import { Subscription } from 'rxjs';
import type { OutcomeResult } from '../../lib/events.js';
import { isTimedOutcome } from '../../lib/outcome.js';
import { breakersOf, loose, PolicyNames, stateValue, type Observed } from './observed.js';

/** Where the figures go: a Prometheus registry, an OpenTelemetry meter, or a test. */
export interface FigureSink {
  /** A breaker's state changed (0 closed, 1 open, 2 half-open); `key` only for a keyed breaker's breakers under `perKey`. */
  state(policy: string, value: number, key: string | undefined): void;
  /**
   * A policy handled a call; `seconds` is `undefined` for shed calls, which did no work;
   * `error` is the outcome event's thrown value (`undefined` for a success, an answered call, or a result judged a failure).
   */
  call(policy: string, result: OutcomeResult, seconds: number | undefined, key: string | undefined, error: unknown): void;
  /** A retry policy is about to try again. */
  retry(policy: string, key: string | undefined): void;
}

/**
 * Feeds `sink` from `target`'s streams: `state$` of each breaker (or its
 * `stateChange` events when it has no `state$`), `outcome` and `retry`
 * events. A keyed breaker's breakers (events named `name:key`) are counted
 * under the keyed breaker's `name`; only with `perKey` is the key passed on
 * (from the name, or an event's string `key` field) and their states
 * reported, so by default keys add no label values.
 * Returns the subscription; unsubscribing stops everything.
 */
export function watchFigures(target: Observed, sink: FigureSink, perKey: boolean): Subscription {
  const sub = new Subscription();
  const withState = new Set<string>();
  for (const b of breakersOf(target)) {
    withState.add(b.name);
    sub.add(
      b.state$.subscribe((s) => {
        const v = stateValue(s);
        if (v >= 0) sink.state(b.name, v, undefined);
      }),
    );
  }
  const names = new PolicyNames(target);
  sub.add(
    target.events$.subscribe((event) => {
      const e = loose(event);
      const policy = names.base(e.policy);
      const keyed = names.key !== undefined;
      const key = !perKey ? undefined : typeof e['key'] === 'string' ? e['key'] : names.key;
      switch (e.type) {
        case 'outcome': {
          const result = e['result'] as OutcomeResult;
          const ms = e['durationMs'];
          const seconds = !isTimedOutcome(result) || typeof ms !== 'number' ? undefined : ms / 1000;
          sink.call(policy, result, seconds, key, e['error']);
          break;
        }
        case 'retry':
          sink.retry(policy, key);
          break;
        case 'stateChange': {
          const v = stateValue(e['to']);
          if (v < 0 || withState.has(e.policy) || (keyed && !perKey)) break;
          sink.state(policy, v, key);
          break;
        }
      }
    }),
  );
  return sub;
}

/** The histogram buckets (seconds) both metric entries default to: prom-client's defaults. */
export const DEFAULT_BUCKETS: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
