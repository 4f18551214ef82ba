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

describe('lib/config/from-config.ts: all or nothing when a policy refuses in place', () => {
  it('puts back the entries already changed when a later one cannot change in place', async () => {
    const clock = new TestClock(T0);
    const p = fromConfig({ policies: [{ type: 'timeout', ms: 10 }, { type: 'circuitBreaker', strategy: 'errorRatio', windowMs: 10_000 }] }, {}, { clock });
    const events = collect(p);
    expect(p.update({ policies: [{ type: 'timeout', ms: 50 }, { type: 'circuitBreaker', strategy: 'errorRatio', windowMs: 20_000 }] })).toBe(false);
    expect(events).toEqual([
      {
        type: 'configRejected',
        policy: 'config',
        reason: 'invalid',
        issues: [{ path: 'policies[1].windowMs', message: 'cannot change in place (it shapes the window); build a new breaker' }],
      },
    ]);
    expect((p.pipeline.policies[0] as unknown as { ms: number }).ms).toBe(10);
    expect(p.config[0]).toMatchObject({ ms: 10 });
    const r = track(p.execute(never), clock);
    await clock.advance(10);
    expect(r.now).toMatchObject({ ok: false, at: T0 + 10 });
  });

  it('a strategy config is refused under its strategy option path', () => {
    const p = fromConfig({ strategy: 'guardedRetry', breaker: { windowMs: 10_000 } });
    const events = collect(p);
    expect(p.update({ strategy: 'guardedRetry', timeoutMs: 7, breaker: { windowMs: 20_000 } })).toBe(false);
    expect(events).toMatchObject([{ type: 'configRejected', reason: 'invalid', issues: [{ path: 'breaker.windowMs' }] }]);
    expect((p.pipeline.policies[0] as unknown as { ms: number }).ms).toBe(1_000);
  });
});

describe('lib/strategies/expand.ts: chains, defaults and error paths', () => {
  const names = (p: { pipeline: { policies: readonly { name: string }[] } }) => p.pipeline.policies.map((x) => x.name);
  const ms = (p: { pipeline: { policies: readonly unknown[] } }, i: number) => (p.pipeline.policies[i] as { ms: number }).ms;

  it('failFast: timeout(1000) → sreBreaker', () => {
    const p = fromConfig({ strategy: 'failFast' });
    expect(names(p)).toEqual(['timeout', 'breaker']);
    expect(ms(p, 0)).toBe(1_000);
  });

  it('boundedRetry: attemptTimeout(1000) → retry → totalTimeout(5000), with retryOn as the retry predicate', async () => {
    const p = fromConfig({ strategy: 'boundedRetry', maxAttempts: 4 });
    expect(names(p)).toEqual(['attemptTimeout', 'retry', 'totalTimeout']);
    expect([ms(p, 0), ms(p, 2)]).toEqual([1_000, 5_000]);
    expect((p.pipeline.policies[1] as unknown as { maxAttempts: number }).maxAttempts).toBe(4);
    const clock = new TestClock(T0);
    const q = fromConfig({ strategy: 'boundedRetry', maxAttempts: 3, backoff: { kind: 'constant', ms: 0 }, retryOn: 'never' }, { never: () => false }, { clock });
    let calls = 0;
    await q
      .execute(() => {
        calls++;
        throw new Error('x');
      })
      .catch(() => undefined);
    expect(calls).toBe(1);
  });

  it('budgetedRetry, standard, guardedRetry, idempotentRetry, layeredBreakers, slowCallShield, fallbackChain: their chains and default timeouts', () => {
    const f = { f: () => 'f' };
    const b = fromConfig({ strategy: 'budgetedRetry' });
    expect(names(b)).toEqual(['timeout', 'retry']);
    expect(ms(b, 0)).toBe(1_000);
    const s = fromConfig({ strategy: 'standard', fallback: 'f' }, f);
    expect(names(s)).toEqual(['timeout', 'retry', 'breaker', 'fallback']);
    expect(ms(s, 0)).toBe(1_000);
    const g = fromConfig({ strategy: 'guardedRetry' });
    expect(names(g)).toEqual(['timeout', 'circuitBreaker', 'retry']);
    expect(g.config[1]).toMatchObject({ type: 'circuitBreaker', strategy: 'errorRatio' });
    const i = fromConfig({ strategy: 'idempotentRetry', idempotent: { leaseMs: 5_000 } });
    expect(names(i)).toEqual(['timeout', 'retry', 'idempotent']);
    expect(i.config[2]).toMatchObject({ type: 'idempotent', leaseMs: 5_000 });
    const l = fromConfig({ strategy: 'layeredBreakers', fallback: 'f', method: { k: 3 } }, f);
    expect(names(l)).toEqual(['timeout', 'methodBreakers', 'serviceBreakers', 'fallback']);
    expect(l.config[1]).toMatchObject({ type: 'keyedBreaker', metaKey: 'method', defaults: { k: 3 } });
    expect(l.config[2]).toMatchObject({ type: 'keyedBreaker', metaKey: 'service' });
    expect(l.config[2]).not.toHaveProperty('defaults');
    const sc = fromConfig({ strategy: 'slowCallShield' });
    expect(names(sc)).toEqual(['timeout', 'snapshot', 'circuitBreaker', 'fallback']);
    expect(ms(sc, 0)).toBe(2_000);
    expect(sc.config[2]).toMatchObject({ strategy: 'slowCallRatio', slowCallMs: 1_000 });
    expect(sc.config[3]).toMatchObject({ handlers: ['$stale'] });
    expect(fromConfig({ strategy: 'slowCallShield', fallback: 'f' }, f).config[3]).toMatchObject({ handlers: ['$stale', 'f'] });
    const fc = fromConfig({ strategy: 'fallbackChain', fallbacks: ['f'] }, f);
    expect(names(fc)).toEqual(['timeout', 'snapshot', 'breaker', 'fallbackChain']);
    expect(fc.config[3]).toMatchObject({ handlers: ['$stale', 'f'] });
    expect(fromConfig({ strategy: 'fallbackChain', defaultValue: 0 }).config[3]).toMatchObject({ handlers: ['$stale', '$default'] });
  });

  it('adaptiveDegrade: a bulkhead of 100 by default, or the rate limiter given', () => {
    const a = fromConfig({ strategy: 'adaptiveDegrade', fallback: 'f' }, { f: () => 'f' });
    expect(names(a)).toEqual(['bulkhead', 'degrade', 'fallback']);
    expect((a.pipeline.policies[0] as unknown as { limit: number }).limit).toBe(100);
    const r = fromConfig(
      { strategy: 'adaptiveDegrade', rateLimiter: { algorithm: { kind: 'tokenBucket', rate: 100, burst: 10 } }, fallback: 'f', signals: { qps: 3 } },
      { f: () => 'f' },
    );
    expect(names(r)).toEqual(['rateLimiter', 'degrade', 'fallback']);
    expect(r.config[1]).toMatchObject({ signals: { qps: 3 }, to: 'f' });
    expect(issuesOf(() => fromConfig({ strategy: 'adaptiveDegrade', bulkhead: { limit: 0 }, fallback: 'f' }, { f: () => 'f' }))).toEqual([
      { path: 'bulkhead.limit', message: expect.any(String) },
    ]);
    expect(issuesOf(() => fromConfig({ strategy: 'adaptiveDegrade', rateLimiter: { algorithm: { kind: 'tokenBucket', rate: 100, burst: 10 } }, fallback: 'g' }, {}))[0]).toEqual({
      path: 'thresholds.to',
      message: 'no handler named "g" was given',
    });
  });

  it('errors in handlers the strategy names are reported under the strategy option', () => {
    expect(issuesOf(() => fromConfig({ strategy: 'boundedRetry', retryOn: 'nope' }, {}))).toEqual([{ path: 'maxAttempts.handle', message: 'no handler named "nope" was given' }]);
    expect(issuesOf(() => fromConfig({ strategy: 'standard', fallback: 'g' }, {}))).toEqual([{ path: 'fallback.handler', message: 'no handler named "g" was given' }]);
    expect(issuesOf(() => fromConfig({ strategy: 'failFast', timeoutMs: 0 }))).toEqual([{ path: 'timeoutMs', message: 'expected a number greater than 0' }]);
    expect(issuesOf(() => fromConfig({ strategy: 'errorCountTrip' }))).toEqual([{ path: 'fallback', message: 'give exactly one of fallback (a handler name) or defaultValue' }]);
  });

  it('errorCountTrip: trips after 5 failures in a row by default, answering the default value', async () => {
    const clock = new TestClock(T0);
    const p = fromConfig({ strategy: 'errorCountTrip', defaultValue: 'dflt' }, {}, { clock });
    expect(p.config[0]).toMatchObject({ strategy: 'consecutiveFailures', threshold: 5 });
    let calls = 0;
    const fail = () => {
      calls++;
      throw new Error('x');
    };
    for (let i = 0; i < 6; i++) expect(await p.execute(fail)).toBe('dflt');
    expect(calls).toBe(5);
    const q = fromConfig({ strategy: 'errorCountTrip', fallback: 'h' }, { h: () => 'handler' }, { clock });
    expect(await q.execute(fail)).toBe('handler');
  });
});

describe('lib/strategies/strategies.ts: code options', () => {
  it('keeps an object defaultValue as given, and lifts functions into handlers', async () => {
    const { strategies } = await import('../../../lib/index.js');
    const clock = new TestClock(T0);
    const d = new Date(0);
    const p = strategies.errorCountTrip({ defaultValue: d, clock });
    expect(await p.execute(() => Promise.reject(new Error('x')))).toBe(d);
    const plain = { a: [1] };
    const q = strategies.fallbackChain({ defaultValue: plain, clock });
    expect(await q.execute(() => Promise.reject(new Error('x')))).toBe(plain);
    const s = strategies.standard({ timeoutMs: 5, maxAttempts: 1, fallback: (e) => `fb:${(e as Error).name}`, clock });
    const r = track(s.execute(never), clock);
    await clock.advance(5);
    expect(r.now).toEqual({ ok: true, value: 'fb:TimeoutError', at: T0 + 5 });
  });
});
