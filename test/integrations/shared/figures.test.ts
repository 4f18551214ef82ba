import { BehaviorSubject, Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { PolicyEvent } from '../../../lib/events.js';
import { DEFAULT_BUCKETS, watchFigures, type FigureSink } from '../../../integrations/shared/figures.js';

/** A sink that writes down every figure. */
function sink() {
  const log: unknown[][] = [];
  const s: FigureSink = {
    state: (policy, value, key) => void log.push(['state', policy, value, key]),
    call: (policy, result, seconds, key) => void log.push(['call', policy, result, seconds, key]),
    retry: (policy, key) => void log.push(['retry', policy, key]),
  };
  return { s, log };
}

const ev = (e: Record<string, unknown>) => e as unknown as PolicyEvent;

describe('watchFigures', () => {
  it('outcomes become calls with their duration in seconds; a shed call has none', () => {
    const events$ = new Subject<PolicyEvent>();
    const { s, log } = sink();
    watchFigures({ name: 'api', events$ }, s, false);
    events$.next(ev({ type: 'outcome', policy: 'api', result: 'success', durationMs: 250 }));
    events$.next(ev({ type: 'outcome', policy: 'api', result: 'timeout', durationMs: 1_000 }));
    events$.next(ev({ type: 'outcome', policy: 'api', result: 'rejected', durationMs: 0 }));
    events$.next(ev({ type: 'outcome', policy: 'api', result: 'failure' }));
    expect(log).toEqual([
      ['call', 'api', 'success', 0.25, undefined],
      ['call', 'api', 'timeout', 1, undefined],
      ['call', 'api', 'rejected', undefined, undefined],
      ['call', 'api', 'failure', undefined, undefined],
    ]);
  });

  it('retry events become retries; other events are not figures', () => {
    const events$ = new Subject<PolicyEvent>();
    const { s, log } = sink();
    watchFigures({ name: 'retry', events$ }, s, false);
    events$.next(ev({ type: 'retry', policy: 'retry', attempt: 2, delayMs: 10 }));
    events$.next(ev({ type: 'giveUp', policy: 'retry', attempts: 3 }));
    expect(log).toEqual([['retry', 'retry', undefined]]);
  });

  it('a breaker with state$ reports its current state and each change from it, not from its events', () => {
    const events$ = new Subject<PolicyEvent>();
    const state$ = new BehaviorSubject('closed');
    const { s, log } = sink();
    watchFigures({ name: 'db', events$, state$ }, s, false);
    state$.next('open');
    events$.next(ev({ type: 'stateChange', policy: 'db', from: 'closed', to: 'open' }));
    state$.next('isolated-ish'); // not a state: no figure
    state$.next('half-open');
    expect(log).toEqual([
      ['state', 'db', 0, undefined],
      ['state', 'db', 1, undefined],
      ['state', 'db', 2, undefined],
    ]);
  });

  it('a breaker without state$ reports its stateChange events', () => {
    const events$ = new Subject<PolicyEvent>();
    const { s, log } = sink();
    watchFigures({ name: 'cb', events$ }, s, false);
    events$.next(ev({ type: 'stateChange', policy: 'cb', from: 'closed', to: 'open' }));
    events$.next(ev({ type: 'stateChange', policy: 'cb', from: 'open', to: 'nowhere' }));
    expect(log).toEqual([['state', 'cb', 1, undefined]]);
  });

  it('a keyed breaker’s breakers count under its name; their keys and states only with perKey', () => {
    for (const perKey of [false, true]) {
      const events$ = new Subject<PolicyEvent>();
      const { s, log } = sink();
      watchFigures({ name: 'hosts', events$ }, s, perKey);
      events$.next(ev({ type: 'outcome', policy: 'hosts:a', result: 'success', durationMs: 1 }));
      events$.next(ev({ type: 'stateChange', policy: 'hosts:a', from: 'closed', to: 'open' }));
      events$.next(ev({ type: 'retry', policy: 'hosts', key: 'k1' }));
      expect(log).toEqual(
        perKey
          ? [
              ['call', 'hosts', 'success', 0.001, 'a'],
              ['state', 'hosts', 1, 'a'],
              ['retry', 'hosts', 'k1'],
            ]
          : [
              ['call', 'hosts', 'success', 0.001, undefined],
              ['retry', 'hosts', undefined],
            ],
      );
    }
  });

  it('every breaker of a pipeline is watched; unsubscribing stops everything', () => {
    const events$ = new Subject<PolicyEvent>();
    const a = { name: 'a', events$, state$: new BehaviorSubject('closed') };
    const b = { name: 'b', events$, state$: new BehaviorSubject('open') };
    const { s, log } = sink();
    const sub = watchFigures({ name: 'p', events$, policies: [a, { name: 'retry' }, b] }, s, false);
    expect(log).toEqual([
      ['state', 'a', 0, undefined],
      ['state', 'b', 1, undefined],
    ]);
    sub.unsubscribe();
    a.state$.next('open');
    events$.next(ev({ type: 'retry', policy: 'retry' }));
    expect(log).toHaveLength(2);
  });
});

describe('DEFAULT_BUCKETS', () => {
  it('are prom-client’s default buckets, 5 ms to 10 s, increasing', () => {
    expect(DEFAULT_BUCKETS).toEqual([0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]);
  });
});
