/**
 * Manual mutation analysis of lib/config, lib/strategies, lib/errors, lib/options,
 * lib/events, lib/judge, lib/pipe and lib/builder: each test pins a condition,
 * string, default or branch no other test noticed being changed.
 */
import { BehaviorSubject, ReplaySubject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import {
  BrokenCircuitError,
  BulkheadRejectedError,
  ConfigError,
  fallback,
  fromConfig,
  IdempotencyInProgressError,
  IdempotencyKeyMissingError,
  isBrokenCircuitError,
  isBulkheadRejectedError,
  isConfigError,
  isIdempotencyInProgressError,
  isIdempotencyKeyMissingError,
  isOverloadedError,
  isRateLimitedError,
  isResilienceError,
  isStoreUnavailableError,
  isTimeoutError,
  OverloadedError,
  pipe,
  policy,
  RateLimitedError,
  retry,
  StoreUnavailableError,
  timeout,
  TimeoutError,
  type PolicyEvent,
} from '../../../lib/index.js';
import { isShedRejection } from '../../../lib/errors.js';
import { formatPath } from '../../../lib/options.js';
import { TestClock } from '../../../lib/testing.js';
import { track } from '../../helpers/track.js';

const T0 = 1_700_000_000_000;

function collect(p: { events$: import('rxjs').Observable<PolicyEvent> }): PolicyEvent[] {
  const out: PolicyEvent[] = [];
  p.events$.subscribe((e) => out.push(e));
  return out;
}

function issuesOf(f: () => unknown): { path: string; message: string }[] {
  try {
    f();
  } catch (e) {
    if (isConfigError(e)) return e.issues.map((i) => ({ path: i.path, message: i.message }));
    throw e;
  }
  throw new Error('expected a ConfigError');
}

const never = () => new Promise<never>(() => {});

describe('lib/config/from-config.ts: hot reload', () => {
  it('names the pipeline after the config, else the strategy, else "config", and the events carry that name', () => {
    expect(fromConfig({ name: 'users', policies: [{ type: 'timeout', ms: 5 }] }).name).toBe('users');
    expect(fromConfig({ strategy: 'failFast' }).name).toBe('failFast');
    expect(fromConfig({ policies: [{ type: 'timeout', ms: 5 }] }).name).toBe('config');
    const configs = new BehaviorSubject<unknown>({ strategy: 'failFast', name: 'edge', timeoutMs: 10 });
    const p = fromConfig(configs);
    const events = collect(p);
    configs.next({ strategy: 'failFast', name: 'edge', timeoutMs: 20 });
    configs.next({ strategy: 'failFast', name: 'edge', timeoutMs: 30 });
    expect(events).toEqual([
      { type: 'configApplied', policy: 'edge', version: 2 },
      { type: 'configApplied', policy: 'edge', version: 3 },
    ]);
  });

  it('update() says whether it applied, and a rejected config leaves the version where it was', () => {
    const p = fromConfig({ policies: [{ type: 'timeout', ms: 10 }] });
    const events = collect(p);
    expect(p.update({ policies: [{ type: 'timeout', ms: 0 }] })).toBe(false);
    expect(p.update({ policies: [{ type: 'retry' }] })).toBe(false);
    expect(p.update({ policies: [{ type: 'timeout', ms: 20 }] })).toBe(true);
    expect(p.config).toMatchObject([{ type: "timeout", ms: 20 }]);
    expect(events.map((e) => e.type)).toEqual(['configRejected', 'configRejected', 'configApplied']);
    expect(events[2]).toEqual({ type: 'configApplied', policy: 'config', version: 2 });
  });

  it('a structure change names both structures, with the strategy when there is one', () => {
    const p = fromConfig({ policies: [{ type: 'timeout', ms: 10 }, { type: 'retry' }] });
    const events = collect(p);
    p.update({ policies: [{ type: 'retry' }, { type: 'timeout', ms: 10 }] });
    const s = fromConfig({ strategy: 'failFast' });
    const sEvents = collect(s);
    s.update({ policies: [{ type: 'timeout', ms: 10 }, { type: 'sreBreaker' }] });
    expect(events).toEqual([
      {
        type: 'configRejected',
        policy: 'config',
        reason: 'structure',
        issues: [{ path: 'policies', message: 'structure changed from "timeout → retry" to "retry → timeout"' }],
      },
    ]);
    expect(sEvents).toEqual([
      {
        type: 'configRejected',
        policy: 'failFast',
        reason: 'structure',
        issues: [{ path: 'policies', message: 'structure changed from "failFast: timeout → sreBreaker" to "timeout → sreBreaker"' }],
      },
    ]);
  });

  it('an invalid config is rejected with every issue, and nothing changes', async () => {
    const clock = new TestClock(T0);
    const p = fromConfig({ policies: [{ type: 'timeout', ms: 10 }, { type: 'retry', maxAttempts: 2, backoff: { kind: 'constant', ms: 0 } }] }, {}, { clock });
    const events = collect(p);
    const before = p.config;
    expect(p.update({ policies: [{ type: 'timeout', ms: 50 }, { type: 'retry', maxAttempts: 0 }] })).toBe(false);
    expect(p.update({ policies: [{ type: 'timeout', ms: 50 }, { type: 'retry', handle: 'gone' }] })).toBe(false);
    expect(events).toEqual([
      { type: 'configRejected', policy: 'config', reason: 'invalid', issues: [{ path: 'policies[1].maxAttempts', message: 'expected an integer >= 1' }] },
      { type: 'configRejected', policy: 'config', reason: 'invalid', issues: [{ path: 'policies[1].handle', message: 'no handler named "gone" was given' }] },
    ]);
    expect(p.config).toBe(before);
    // neither rejected config changed the timeout: two attempts of 10 ms, not 50
    const r = track(p.execute(never), clock);
    await clock.advance(20);
    expect(r.now).toMatchObject({ ok: false, at: T0 + 20 });
  });

  it('a config that throws while read is rejected with the thrown value as the message', () => {
    const p = fromConfig({ policies: [{ type: 'timeout', ms: 10 }] });
    const events = collect(p);
    const bad = {
      get policies(): never {
        throw new Error('boom');
      },
    };
    expect(p.update(bad)).toBe(false);
    expect(events).toEqual([{ type: 'configRejected', policy: 'config', reason: 'invalid', issues: [{ path: '', message: 'Error: boom' }] }]);
  });

  it('builds from the FIRST config a replaying stream gives, then follows the rest', () => {
    const configs = new ReplaySubject<unknown>(2);
    configs.next({ policies: [{ type: 'timeout', ms: 10 }] });
    configs.next({ policies: [{ type: 'retry' }] });
    const p = fromConfig(configs);
    // the second config changes the structure: refused, the first stays in force
    expect(p.config).toMatchObject([{ type: "timeout", ms: 10 }]);
  });

  it('works as a layer of a pipe: the layers around it still run', async () => {
    const clock = new TestClock(T0);
    const inner = fromConfig({ policies: [{ type: 'timeout', ms: 10 }] }, {}, { clock });
    const p = pipe(inner, fallback((e: unknown) => `fb:${(e as Error).name}`));
    const r = track(p.execute(never), clock);
    await clock.advance(10);
    expect(r.now).toEqual({ ok: true, value: 'fb:TimeoutError', at: T0 + 10 });
  });
});
