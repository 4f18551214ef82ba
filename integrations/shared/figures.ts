import { Subscription } from 'rxjs';
import type { OutcomeResult } from '../../lib/events.js';
import { breakersOf, loose, stateValue, type Observed } from './observed.js';

/** Where the figures go: a Prometheus registry, an OpenTelemetry meter, or a test. */
export interface FigureSink {
  /** A breaker's state changed (0 closed, 1 open, 2 half-open). */
  state(policy: string, value: number): void;
  /** A policy handled a call; `seconds` is `undefined` for shed calls, which did no work. */
  call(policy: string, result: OutcomeResult, seconds: number | undefined, key: string | undefined): void;
  /** A retry policy is about to try again. */
  retry(policy: string, key: string | undefined): void;
}

/**
 * Feeds `sink` from `target`'s streams: `state$` of each breaker (or its
 * `stateChange` events when it has no `state$`), `outcome` and `retry`
 * events. With `perKey`, an event's string `key` field is passed on;
 * otherwise never, so keyed breakers add no label values per key.
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
        if (v >= 0) sink.state(b.name, v);
      }),
    );
  }
  sub.add(
    target.events$.subscribe((event) => {
      const e = loose(event);
      const key = perKey && typeof e['key'] === 'string' ? e['key'] : undefined;
      switch (e.type) {
        case 'outcome': {
          const result = e['result'] as OutcomeResult;
          const ms = e['durationMs'];
          const seconds = result === 'rejected' || typeof ms !== 'number' ? undefined : ms / 1000;
          sink.call(e.policy, result, seconds, key);
          break;
        }
        case 'retry':
          sink.retry(e.policy, key);
          break;
        case 'stateChange': {
          const v = stateValue(e['to']);
          if (!withState.has(e.policy) && v >= 0) sink.state(e.policy, v);
          break;
        }
      }
    }),
  );
  return sub;
}

/** The histogram buckets (seconds) both metric entries default to: prom-client's defaults. */
export const DEFAULT_BUCKETS: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
