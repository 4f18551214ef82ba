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
  systemClock,
  timeout,
  TimeoutError,
  type PolicyEvent,
} from '../../../api/index.js';
import { isShedRejection } from '../../../lib/errors.js';
import { formatPath } from '../../../lib/schemas.js';
import { TestClock } from '../../../lib/testing.js';
import { collect } from '../../helpers/breakers.js';
import { track } from '../../helpers/track.js';

const T0 = 1_700_000_000_000;

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
    expect(p.update({ policies: [{ type: 'timeout', ms: 20, mode: 'cooperative' }] })).toBe(true);
    expect(p.pipeline.policies[0]).toMatchObject({ ms: 20, mode: 'cooperative' });
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
        issues: [{ path: 'policies', message: 'structure changed from "failFast: timeout → adaptiveBreaker" to "timeout → sreBreaker"' }],
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
  it('works as an outer layer of a pipe: the layers inside it still run', async () => {
    const clock = new TestClock(T0);
    const outer = fromConfig({ policies: [{ type: 'fallback', handler: 'fb' }] }, { fb: (e: unknown) => `fb:${(e as Error).name}` }, { clock });
    const p = pipe(timeout({ ms: 10, clock }), outer);
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

  it('an SRE breaker refuses a new window shape in place', () => {
    const p = fromConfig({ policies: [{ type: 'sreBreaker', windowMs: 10_000 }] });
    const events = collect(p);
    expect(p.update({ policies: [{ type: 'sreBreaker', windowMs: 20_000 }] })).toBe(false);
    expect(events).toMatchObject([{ type: 'configRejected', reason: 'invalid', issues: [{ path: 'policies[0].windowMs' }] }]);
    expect(p.update({ policies: [{ type: 'sreBreaker', windowMs: 10_000, k: 3 }] })).toBe(true);
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
    expect(fromConfig({ strategy: 'boundedRetry', backoff: { kind: 'constant', ms: 3 } }).config[1]).toMatchObject({ type: 'retry', backoff: { kind: 'constant', ms: 3 } });
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
    expect(b.config[1]).toMatchObject({ budget: { kind: 'token', ratio: 0.1, minPerSecond: 10, windowMs: 10_000 } });
    expect(ms(b, 0)).toBe(1_000);
    const s = fromConfig({ strategy: 'standard', fallback: 'f' }, f);
    expect(names(s)).toEqual(['timeout', 'adaptiveLimiter', 'retry', 'breaker', 'fallback']);
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

  it('a written-out entry that breaks a rule of its policy is reported under the strategy option, with the nested path', () => {
    expect(issuesOf(() => fromConfig({ strategy: 'slowCallShield', timeoutMs: 2_000, slowCallMs: 200, breaker: { threshold: 2 } }))).toEqual([
      { path: 'breaker.threshold', message: 'expected a ratio in [0, 1]' },
    ]);
    expect(issuesOf(() => fromConfig({ strategy: 'failFast', breaker: { windowMs: 1_000, buckets: 3 } }))).toEqual([{ path: 'breaker.buckets', message: 'must divide windowMs (1000) into whole milliseconds' }]);
  });

  it('a rule a policy factory checks is reported under the entry path, and the pipeline keeps the env clock', () => {
    expect(issuesOf(() => fromConfig({ policies: [{ type: 'chaos', fault: 'f', result: 'r' }] }, { f: () => 1, r: () => 2 }))).toEqual([
      { path: 'policies[0].result', message: 'fault and result are exclusive (pipe two chaos policies to have both)' },
    ]);
    const clock = new TestClock(T0);
    expect(fromConfig({ policies: [{ type: 'fallback', handler: 'f' }] }, { f: () => 1 }, { clock }).pipeline.clock).toBe(clock);
  });

  it('slowCallShield and fallbackChain answer a failure from the last good value of the key', async () => {
    for (const config of [{ strategy: 'slowCallShield' }, { strategy: 'fallbackChain' }] as const) {
      const clock = new TestClock(T0);
      const p = fromConfig(config, {}, { clock });
      await expect(p.execute(() => 'v1', { key: 'k' })).resolves.toBe('v1');
      await clock.advance(10);
      await expect(p.execute(() => Promise.reject(new Error('x')), { key: 'k' })).resolves.toBe('v1');
    }
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
    const two = fromConfig({ strategy: 'errorCountTrip', threshold: 2, defaultValue: 0 }, {}, { clock });
    calls = 0;
    for (let i = 0; i < 3; i++) await two.execute(fail);
    expect(calls).toBe(2);
  });
});

describe('lib/strategies/strategies.ts: code options', () => {
  it('keeps an object defaultValue as given, and lifts functions into handlers', async () => {
    const { strategies } = await import('../../../api/index.js');
    const clock = new TestClock(T0);
    const d = new Date(0);
    const p = strategies.errorCountTrip({ defaultValue: d, clock });
    expect(await p.execute(() => Promise.reject(new Error('x')))).toBe(d);
    // an Observable (a class instance, not plain data) is passed on as itself, by a generated name
    const load = new BehaviorSubject(0);
    const ad = strategies.adaptiveDegrade({ fallback: () => 'f', signals: { cpu: load }, clock });
    expect(ad.config[1]).toMatchObject({ signals: { cpu: expect.stringMatching(/^\$fn/) } });
    // each function gets its own name, arrays included
    const chain = strategies.fallbackChain({ fallbacks: [() => Promise.reject(new Error('first')), () => 'second'], clock });
    expect(await chain.execute(() => Promise.reject(new Error('x')), { key: 'none' })).toBe('second');
    // the random source reaches the retry: full jitter of the default 100 ms backoff, at 0.5, is 50 ms
    const brClock = new TestClock(T0);
    const br = strategies.boundedRetry({ maxAttempts: 2, random: () => 0.5, clock: brClock });
    const brEvents = collect(br);
    const run = br.execute(() => Promise.reject(new Error('x'))).catch(() => undefined);
    await brClock.runAll();
    await run;
    expect(brEvents.filter((e) => e.type === 'retry').map((e) => (e as { delayMs: number }).delayMs)).toEqual([50]);
    const plain = { a: [1] };
    const q = strategies.fallbackChain({ defaultValue: plain, clock });
    expect(await q.execute(() => Promise.reject(new Error('x')))).toBe(plain);
    const s = strategies.standard({ timeoutMs: 5, maxAttempts: 1, fallback: (e) => `fb:${(e as Error).name}`, clock });
    const r = track(s.execute(never), clock);
    await clock.advance(5);
    expect(r.now).toEqual({ ok: true, value: 'fb:TimeoutError', at: T0 + 5 });
  });
});

describe('lib/errors.ts: fields, codes, messages and brand guards', () => {
  it('each error carries its code, name, policy, default message and extra fields', () => {
    const cause = new Error('root');
    const cases: [Error & { code: string; policy: string }, string, string, string][] = [
      [new BrokenCircuitError('db', 250), 'BREAKER_OPEN', 'BrokenCircuitError', 'circuit breaker is open (db)'],
      [new TimeoutError('db'), 'TIMEOUT', 'TimeoutError', 'operation timed out (db)'],
      [new RateLimitedError('db', 40), 'RATE_LIMITED', 'RateLimitedError', 'rate limit exceeded (db); retry after 40 ms'],
      [new BulkheadRejectedError('db'), 'BULKHEAD_FULL', 'BulkheadRejectedError', 'bulkhead is full (db)'],
      [new OverloadedError('db'), 'OVERLOADED', 'OverloadedError', 'service overloaded, call shed (db)'],
      [new IdempotencyInProgressError('db', 'k1'), 'IDEMPOTENCY_IN_PROGRESS', 'IdempotencyInProgressError', 'operation for key "k1" is already in progress (db)'],
      [new IdempotencyKeyMissingError('db'), 'IDEMPOTENCY_KEY_MISSING', 'IdempotencyKeyMissingError', 'no idempotency key: pass { key } to execute or a key(ctx) option (db)'],
      [new StoreUnavailableError('db', 'redis down', { cause }), 'STORE_UNAVAILABLE', 'StoreUnavailableError', 'redis down'],
      [new ConfigError('retry', [{ path: 'maxAttempts', message: 'too low' }, { path: '', message: 'whole' }]), 'INVALID_CONFIG', 'ConfigError', 'invalid retry options: maxAttempts: too low; whole'],
    ];
    for (const [e, code, name, message] of cases) {
      expect({ code: e.code, name: e.name, message: e.message, policy: e.policy }).toEqual({ code, name, message, policy: code === 'INVALID_CONFIG' ? 'retry' : 'db' });
      expect(e).toBeInstanceOf(Error);
      expect(isResilienceError(e)).toBe(true);
    }
    expect(new BrokenCircuitError('db', 250).retryAfterMs).toBe(250);
    expect(new BrokenCircuitError('db').retryAfterMs).toBeUndefined();
    expect(new BrokenCircuitError('db', 1, 'custom').message).toBe('custom');
    expect(new RateLimitedError('db', 40).retryAfterMs).toBe(40);
    expect(new IdempotencyInProgressError('db', 'k1').key).toBe('k1');
    expect(new StoreUnavailableError('db', 'x', { cause }).cause).toBe(cause);
    expect(new TimeoutError('db', 'slow', { cause }).cause).toBe(cause);
    expect('cause' in new TimeoutError('db')).toBe(false);
    expect('cause' in new TimeoutError('db', 'slow', {})).toBe(false);
    expect(new StoreUnavailableError('db', 'x', { cause: undefined })).toHaveProperty('cause', undefined);
    expect(new ConfigError('retry', []).issues).toEqual([]);
  });

  it('the guards read the brand, so they accept errors from another copy and nothing else', () => {
    const brand = Symbol.for('breakwater.error');
    const foreign = (code: string) => ({ [brand]: code });
    const guards: [(v: unknown) => boolean, string][] = [
      [isBrokenCircuitError, 'BREAKER_OPEN'],
      [isTimeoutError, 'TIMEOUT'],
      [isRateLimitedError, 'RATE_LIMITED'],
      [isBulkheadRejectedError, 'BULKHEAD_FULL'],
      [isOverloadedError, 'OVERLOADED'],
      [isIdempotencyInProgressError, 'IDEMPOTENCY_IN_PROGRESS'],
      [isIdempotencyKeyMissingError, 'IDEMPOTENCY_KEY_MISSING'],
      [isStoreUnavailableError, 'STORE_UNAVAILABLE'],
      [isConfigError, 'INVALID_CONFIG'],
    ];
    for (const [guard, code] of guards) {
      expect(guard(foreign(code)), code).toBe(true);
      for (const [, other] of guards) if (other !== code) expect(guard(foreign(other)), `${code} vs ${other}`).toBe(false);
      expect(guard(null)).toBe(false);
      expect(guard(code)).toBe(false);
      expect(guard(new Error(code))).toBe(false);
    }
    // a function carrying the brand is not an error of ours
    const fn = Object.assign(() => undefined, { [brand]: 'TIMEOUT' });
    expect(isTimeoutError(fn)).toBe(false);
    expect(isResilienceError(fn)).toBe(false);
    expect(isShedRejection(Object.assign(() => undefined, { [brand]: 'BREAKER_OPEN' }))).toBe(false);
    expect(isResilienceError(foreign('ANYTHING'))).toBe(true);
    expect(isResilienceError({ [brand]: 1 })).toBe(false);
    expect(isResilienceError(null)).toBe(false);
    expect(isResilienceError('TIMEOUT')).toBe(false);
    expect(isResilienceError(new Error('x'))).toBe(false);
  });

  it('isShedRejection is true exactly for the five load-shedding codes', () => {
    const brand = Symbol.for('breakwater.error');
    for (const code of ['BREAKER_OPEN', 'RATE_LIMITED', 'BULKHEAD_FULL', 'OVERLOADED', 'IDEMPOTENCY_IN_PROGRESS']) expect(isShedRejection({ [brand]: code }), code).toBe(true);
    for (const code of ['TIMEOUT', 'IDEMPOTENCY_KEY_MISSING', 'STORE_UNAVAILABLE', 'INVALID_CONFIG', undefined]) expect(isShedRejection({ [brand]: code }), String(code)).toBe(false);
    expect(isShedRejection(null)).toBe(false);
    expect(isShedRejection('BREAKER_OPEN')).toBe(false);
  });
});

describe('lib/options.ts: paths and messages', () => {
  it('formats paths with dots between names and brackets around indexes', () => {
    expect(formatPath([])).toBe('');
    expect(formatPath(['policies', 1, 'backoff', 'ms'])).toBe('policies[1].backoff.ms');
    expect(formatPath([0, 'a'])).toBe('[0].a');
    expect(formatPath(['a', 2, 3])).toBe('a[2][3]');
  });

  it('reports unknown keys one by one, a union by its closest branch, and the rule of each number helper', () => {
    expect(issuesOf(() => retry({ maxAttempts: 0 }))).toEqual([{ path: 'maxAttempts', message: 'expected an integer >= 1' }]);
    expect(issuesOf(() => retry({ maxAttempts: 1.5 }))).toEqual([{ path: 'maxAttempts', message: 'expected an integer >= 1' }]);
    expect(issuesOf(() => timeout({ ms: 0 }))).toEqual([{ path: 'ms', message: 'expected a number greater than 0' }]);
    expect(issuesOf(() => timeout({ ms: 'x' as never }))).toEqual([{ path: 'ms', message: 'expected a finite number of milliseconds' }]);
    expect(issuesOf(() => timeout({ ms: 5, a: 1, b: 2 } as never))).toEqual([
      { path: 'a', message: 'unknown option' },
      { path: 'b', message: 'unknown option' },
    ]);
    expect(issuesOf(() => timeout({ ms: 5, clock: {} as never }))).toEqual([{ path: 'clock', message: 'expected a Clock (now, setTimeout, clearTimeout)' }]);
    expect(issuesOf(() => retry({ random: 1 as never }))).toEqual([{ path: 'random', message: 'expected a function returning a number in [0, 1)' }]);
    expect(issuesOf(() => timeout({ ms: 5, name: '' }))).toEqual([{ path: 'name', message: 'expected a non-empty string' }]);
    expect(issuesOf(() => fromConfig({ policies: [{ type: 'chaos', injectionRate: 2 }] }))).toEqual([{ path: 'policies[0].injectionRate', message: 'expected a number in [0, 1]' }]);
    expect(issuesOf(() => fromConfig({ policies: [{ type: 'retry', backoff: { kind: 'constant', ms: -1 } }] }))).toEqual([
      { path: 'policies[0].backoff.ms', message: 'expected a number >= 0' },
    ]);
    expect(issuesOf(() => fromConfig({ policies: [{ type: 'hedge', maxHedged: 0 }] }))).toEqual([{ path: 'policies[0].maxHedged', message: 'expected an integer >= 1' }]);
    // a union reports the branch that got furthest: a clock that lacks only clearTimeout
    const half = { now: () => 0, setTimeout: () => 0 };
    expect(issuesOf(() => timeout({ ms: 5, clock: half as never }))[0]!.path).toBe('clock');
  });

  it('a union reports the branch with the fewest issues', () => {
    // as a circuit breaker: one issue (no strategy); as an SRE breaker: two (k, bogus)
    expect(issuesOf(() => fromConfig({ policies: [{ type: 'keyedBreaker', metaKey: 'm', defaults: { k: 'x', bogus: 1 } }] })).map((i) => i.path)).toEqual([
      'policies[0].defaults.strategy',
    ]);
  });

  it('a union of entries reports the closest branch, with its nested path', () => {
    expect(issuesOf(() => fromConfig({ policies: [{ type: 'degrade', when: { decisionTree: { nope: 1 } }, to: 'f' }] }, { f: () => 1 }))).toEqual([
      { path: 'policies[0].when.decisionTree.nope', message: 'unknown option' },
    ]);
  });
});

describe('lib/pipe.ts and lib/builder.ts: composition', () => {
  it('pipe: the first policy is innermost; nested pipelines are flattened; the default name is "pipeline"', async () => {
    const clock = new TestClock(T0);
    const inner = pipe(timeout({ ms: 10, clock }), fallback(() => 'inner'));
    const p = pipe(inner, fallback(() => 'outer'));
    expect(p.name).toBe('pipeline');
    expect(p.policies.map((x) => x.name)).toEqual(['timeout', 'fallback', 'fallback']);
    expect(p.clock).toBe(clock);
    const r = track(p.execute(never), clock);
    await clock.advance(10);
    expect(r.now).toEqual({ ok: true, value: 'inner', at: T0 + 10 });
    // the other order: the fallback is inside the timeout and never sees it
    const q = pipe(fallback(() => 'inner'), timeout({ ms: 10, clock }));
    const s = track(q.execute(never), clock);
    await clock.advance(10);
    expect(s.now).toMatchObject({ ok: false, at: T0 + 20 });
    expect(isTimeoutError((s.now as { error: unknown }).error)).toBe(true);
  });

  it('pipe takes the clock of the first policy that has one', () => {
    const a = new TestClock(T0);
    const b = new TestClock(T0 + 1);
    expect(pipe(fallback(() => 1), timeout({ ms: 1, clock: a }), timeout({ ms: 1, clock: b })).clock).toBe(a);
  });

  it('a pipeline used as a layer runs its own layers, then the rest of the chain', async () => {
    const clock = new TestClock(T0);
    const order: string[] = [];
    const mark = (label: string) => fallback(() => label, { handle: () => (order.push(label), true) });
    const layer = pipe(mark('a'), mark('b'));
    const p = policy({ clock }).use(timeout({ ms: 5, clock })).use(layer).use(mark('c'));
    // a is inside b: a answers the timeout; b and c see a success
    const r = track(p.execute(never), clock);
    await clock.advance(5);
    expect(r.now).toEqual({ ok: true, value: 'a', at: T0 + 5 });
    expect(order).toEqual(['a']);
  });

  it('the builder names the pipeline, and gives its clock and random to the policies it builds', async () => {
    const clock = new TestClock(T0);
    const b = policy({ clock, name: 'svc', random: () => 0 }).timeout(10).retry({ maxAttempts: 2 });
    expect(b.name).toBe('svc');
    expect(b.clock).toBe(clock);
    expect(policy().name).toBe('pipeline');
    // without a clock of its own, the builder's root context runs on the system clock, whatever its policies use
    expect(policy().use(timeout({ ms: 1, clock })).clock).toBe(systemClock);
    let calls = 0;
    const r = track(
      b.execute(() => {
        calls++;
        return never();
      }),
      clock,
    );
    // random 0: full jitter gives no delay between attempts; each attempt times out at 10 ms on the test clock
    await clock.advance(20);
    expect(calls).toBe(2);
    expect(r.now).toMatchObject({ ok: false, at: T0 + 20 });
  });
});

describe('lib/builder.ts: every step runs on the builder clock', () => {
  it('hedge, chaos, cache, circuitBreaker, keyedBreaker, rateLimiter, sreBreaker use it; bulkhead, degrade, loadShedder hold it', async () => {
    const clock = new TestClock(T0);
    const b = () => policy({ clock, random: () => 0 });

    let calls = 0;
    void b()
      .hedge({ delayMs: 5 })
      .execute(() => (calls++, never()))
      .catch(() => undefined);
    await clock.advance(5);
    expect(calls).toBe(2);

    const c = track(b().chaos({ latency: 5, injectionRate: 1 }).execute(() => 'v'), clock);
    await clock.advance(5);
    expect(c.now).toEqual({ ok: true, value: 'v', at: T0 + 10 });

    let n = 0;
    const cached = b().cache({ ttlMs: 10 });
    await cached.execute(() => ++n, { key: 'k' });
    await cached.execute(() => ++n, { key: 'k' });
    expect(n).toBe(1);
    await clock.advance(10);
    await cached.execute(() => ++n, { key: 'k' });
    expect(n).toBe(2);

    const fail = () => Promise.reject(new Error('x'));
    for (const p of [
      b().circuitBreaker({ strategy: 'consecutiveFailures', threshold: 1, openMs: 100 }),
      b().keyedBreaker(() => 'k', { defaults: { strategy: 'consecutiveFailures', threshold: 1, openMs: 100 } }),
    ]) {
      await p.execute(fail).catch(() => undefined);
      await expect(p.execute(() => 'ok')).rejects.toSatisfy(isBrokenCircuitError);
      await clock.advance(100);
      await expect(p.execute(() => 'ok')).resolves.toBe('ok');
    }

    const rl = b().rateLimiter({ algorithm: { kind: 'tokenBucket', rate: 1, burst: 1 } });
    await rl.execute(() => 1);
    await expect(rl.execute(() => 1)).rejects.toSatisfy(isRateLimitedError);
    await clock.advance(1_000);
    await expect(rl.execute(() => 1)).resolves.toBe(1);

    const held = b()
      .bulkhead({ limit: 1 })
      .degrade({ when: () => false, to: () => 'd' })
      .loadShedder({ cpu: 0 });
    expect(held.policies.map((p) => (p as unknown as { clock: unknown }).clock)).toEqual([clock, clock, clock]);
    expect(b().breaker().policies.map((p) => p.name)).toEqual(['breaker']);
  });
});

describe('lib/judge.ts', () => {
  it('a predicate that throws counts as a failure', async () => {
    let calls = 0;
    const r = retry({
      maxAttempts: 3,
      backoff: () => 0,
      handle: () => {
        throw new Error('buggy');
      },
    } as never);
    await r
      .execute(() => {
        calls++;
        throw new Error('x');
      })
      .catch(() => undefined);
    expect(calls).toBe(3);
  });
});

describe('lib/config/entries.ts: every entry builds its policy with its options', () => {
  const at = <P>(p: { pipeline: { policies: readonly unknown[] } }, i = 0) => p.pipeline.policies[i] as P;

  it('hedge: delayMs, afterFailure (no hedge before a failure), maxHedged and name', async () => {
    const clock = new TestClock(T0);
    const hedges = (cfg: object) => {
      const p = fromConfig({ policies: [{ type: 'hedge', ...cfg }] }, {}, { clock });
      let calls = 0;
      void p
        .execute(() => {
          calls++;
          return never();
        })
        .catch(() => undefined);
      return { p, calls: () => calls };
    };
    const d = hedges({ delayMs: 5, maxHedged: 2, name: 'h' });
    const a = hedges({ afterFailure: true });
    await clock.advance(20);
    expect(d.calls()).toBe(3);
    expect(at<{ name: string; maxHedged: number }>(d.p)).toMatchObject({ name: 'h', maxHedged: 2 });
    expect(a.calls()).toBe(1);
  });

  it('chaos: latency by number or by handler, enabled by handler, injectionRate and name', async () => {
    const clock = new TestClock(T0);
    const p = fromConfig(
      { policies: [{ type: 'chaos', latency: 'lat', enabled: 'on', injectionRate: 0.5, name: 'monkey' }] },
      { lat: () => 7, on: () => true },
      { clock, random: () => 0.4 },
    );
    expect(at<{ name: string; injectionRate: number }>(p)).toMatchObject({ name: 'monkey', injectionRate: 0.5 });
    const r = track(p.execute(() => 'v'), clock);
    await clock.advance(7);
    expect(r.now).toEqual({ ok: true, value: 'v', at: T0 + 7 });
    const q = fromConfig({ policies: [{ type: 'chaos', latency: 3, enabled: 'off' }] }, { off: () => false }, { clock, random: () => 0 });
    const s = track(q.execute(() => 'w'), clock);
    await clock.advance(0);
    expect(s.now).toEqual({ ok: true, value: 'w', at: T0 + 7 });
    const n = fromConfig({ policies: [{ type: 'chaos', latency: 3 }] }, {}, { clock, random: () => 0 });
    const t = track(n.execute(() => 'x'), clock);
    await clock.advance(3);
    expect(t.now).toEqual({ ok: true, value: 'x', at: T0 + 10 });
    expect(issuesOf(() => fromConfig({ policies: [{ type: 'chaos', latency: 'l', enabled: 'e', fault: 'f' }] }, {})).map((i) => i.path)).toEqual([
      'policies[0].latency',
      'policies[0].enabled',
      'policies[0].fault',
    ]);
    expect(issuesOf(() => fromConfig({ policies: [{ type: 'chaos', result: 'r' }] }, {})).map((i) => i.path)).toEqual(['policies[0].result']);
  });

  it('keyedBreaker: needs metaKey or keyOf; takes its name, idleMs and defaults', () => {
    expect(issuesOf(() => fromConfig({ policies: [{ type: 'keyedBreaker' }] }))).toEqual([{ path: 'policies[0].metaKey', message: 'give metaKey or keyOf' }]);
    expect(issuesOf(() => fromConfig({ policies: [{ type: 'keyedBreaker', keyOf: 'k' }] }, {}))).toEqual([{ path: 'policies[0].keyOf', message: 'no handler named "k" was given' }]);
    expect(issuesOf(() => fromConfig({ policies: [{ type: 'keyedBreaker', metaKey: 'm', defaults: { handle: 'h' } }] }, {}))).toEqual([
      { path: 'policies[0].defaults.handle', message: 'no handler named "h" was given' },
    ]);
    const p = fromConfig({ policies: [{ type: 'keyedBreaker', metaKey: 'method', name: 'perMethod', idleMs: 1234 }] });
    expect(at<{ name: string }>(p).name).toBe('perMethod');
    expect(JSON.stringify(Object.values(at<object>(p)).map((v) => (v && typeof v === 'object' && 'idleMs' in v ? v.idleMs : null)))).toContain('1234');
  });

  it('keyedBreaker: keys each breaker by the meta label, or by the keyOf function', async () => {
    const clock = new TestClock(T0);
    const p = fromConfig({ policies: [{ type: 'keyedBreaker', metaKey: 'method', defaults: { strategy: 'consecutiveFailures', threshold: 1 } }] }, {}, { clock });
    const fail = () => Promise.reject(new Error('x'));
    await p.execute(fail, { meta: { method: 'a' } }).catch(() => undefined);
    await expect(p.execute(() => 'ok', { meta: { method: 'a' } })).rejects.toSatisfy(isBrokenCircuitError);
    await expect(p.execute(() => 'ok', { meta: { method: 'b' } })).resolves.toBe('ok');
    const q = fromConfig({ policies: [{ type: 'keyedBreaker', keyOf: 'k', defaults: { strategy: 'consecutiveFailures', threshold: 1 } }] }, { k: () => 'same' }, { clock });
    await q.execute(fail, { meta: { method: 'a' } }).catch(() => undefined);
    await expect(q.execute(() => 'ok', { meta: { method: 'b' } })).rejects.toSatisfy(isBrokenCircuitError);
  });

  it('fallback: handle and handleResult pick what it answers; name; fallbackChain name', async () => {
    const p = fromConfig(
      { policies: [{ type: 'fallback', handler: 'fb', handle: 'onlyTypeError', handleResult: 'isNull', name: 'safe' }] },
      { fb: () => 'fb', onlyTypeError: (e: unknown) => e instanceof TypeError, isNull: (r: unknown) => r === null },
    );
    expect(at<{ name: string }>(p).name).toBe('safe');
    await expect(p.execute(() => Promise.reject(new TypeError('t')))).resolves.toBe('fb');
    await expect(p.execute(() => Promise.reject(new RangeError('r')))).rejects.toBeInstanceOf(RangeError);
    await expect(p.execute(() => null)).resolves.toBe('fb');
    await expect(p.execute(() => 1)).resolves.toBe(1);
    const c = fromConfig({ policies: [{ type: 'fallbackChain', handlers: ['a', 'b'], name: 'chain' }] }, { a: () => Promise.reject(new Error('a')), b: () => 'b' });
    expect(at<{ name: string }>(c).name).toBe('chain');
    await expect(c.execute(() => Promise.reject(new Error('x')))).resolves.toBe('b');
  });

  it('retry: backoff kinds, budget kinds, handleResult and name', async () => {
    const clock = new TestClock(T0);
    const delays = async (backoff: object) => {
      const p = fromConfig({ policies: [{ type: 'retry', maxAttempts: 3, backoff }] }, {}, { clock, random: () => 0.5 });
      const ev = collect(p);
      const r = p.execute(() => Promise.reject(new Error('x'))).catch(() => undefined);
      await clock.runAll();
      await r;
      return ev.flatMap((e) => (e.type === 'retry' ? [e.delayMs] : []));
    };
    expect(await delays({ kind: 'constant', ms: 7 })).toEqual([7, 7]);
    expect(await delays({ kind: 'linear', ms: 10, step: 5 })).toEqual([10, 15]);
    expect((await delays({ kind: 'exponential', initial: 100, max: 1_000, jitter: 'none' })).length).toBe(2);
    const named = fromConfig({ policies: [{ type: 'retry', name: 'again', handleResult: 'isNull', backoff: { kind: 'constant', ms: 0 } }] }, { isNull: (r: unknown) => r === null }, { clock });
    expect(at<{ name: string }>(named).name).toBe('again');
    let n = 0;
    const v = named.execute(() => (++n < 2 ? null : 'ok'));
    await clock.runAll();
    await expect(v).resolves.toBe('ok');
    const budget = fromConfig({ policies: [{ type: 'retry', maxAttempts: 5, backoff: { kind: 'constant', ms: 0 }, budget: { kind: 'slo', maxRetries: 0 } }] }, {}, { clock });
    let calls = 0;
    const b = budget.execute(() => (calls++, Promise.reject(new Error('x')))).catch(() => undefined);
    await clock.runAll();
    await b;
    expect(calls).toBe(1);
  });

  it('degrade, loadShedder, cache, idempotent: a named value of the wrong kind is an issue naming what was expected', () => {
    const h = { n: 'not a source', f: () => 'f', s: 42 };
    expect(issuesOf(() => fromConfig({ policies: [{ type: 'degrade', when: 'f', signals: { cpu: 'n', qps: 3 }, to: 'f' }] }, h))).toEqual([
      { path: 'policies[0].signals.cpu', message: 'handler "n" must be a number, a function or an Observable' },
    ]);
    expect(issuesOf(() => fromConfig({ policies: [{ type: 'degrade', when: 'w', to: 't' }] }, {}))).toEqual([
      { path: 'policies[0].when', message: 'no handler named "w" was given' },
      { path: 'policies[0].to', message: 'no handler named "t" was given' },
    ]);
    expect(issuesOf(() => fromConfig({ policies: [{ type: 'loadShedder', cpu: 'n' }] }, h))).toEqual([
      { path: 'policies[0].cpu', message: 'handler "n" must be a number, a function or an Observable' },
    ]);
    expect(issuesOf(() => fromConfig({ policies: [{ type: 'cache', ttlMs: 1, store: 's', key: 'k', handleResult: 'r' }] }, h))).toEqual([
      { path: 'policies[0].store', message: 'handler "s" must be a CacheStore' },
      { path: 'policies[0].key', message: 'no handler named "k" was given' },
      { path: 'policies[0].handleResult', message: 'no handler named "r" was given' },
    ]);
    expect(issuesOf(() => fromConfig({ policies: [{ type: 'idempotent', store: 's', codec: 'n', key: 'k', handleResult: 'r' }] }, h))).toEqual([
      { path: 'policies[0].store', message: 'handler "s" must be an IdempotencyStore' },
      { path: 'policies[0].key', message: 'no handler named "k" was given' },
      { path: 'policies[0].codec', message: 'handler "n" must be a codec' },
      { path: 'policies[0].handleResult', message: 'no handler named "r" was given' },
    ]);
    expect(issuesOf(() => fromConfig({ policies: [{ type: 'sreBreaker', handle: 'a', handleResult: 'b' }, { type: 'circuitBreaker', strategy: 'custom', readyToTrip: 'c' }] }, {}))).toEqual([
      { path: 'policies[0].handle', message: 'no handler named "a" was given' },
      { path: 'policies[0].handleResult', message: 'no handler named "b" was given' },
      { path: 'policies[1].readyToTrip', message: 'no handler named "c" was given' },
    ]);
  });

  it('degrade: a number signal and the handler signal feed the decision tree; the answer comes from `to`', async () => {
    const clock = new TestClock(T0);
    const p = fromConfig({ policies: [{ type: 'degrade', when: 'hot', signals: { cpu: 0.9, mem: 'mem' }, to: 'cold', name: 'dg' }] }, {
      hot: (s: Readonly<Record<string, number>>) => s.cpu! > 0.5 && s.mem === 7,
      mem: () => 7,
      cold: () => 'degraded',
    }, { clock });
    expect(at<{ name: string }>(p).name).toBe('dg');
    await expect(p.execute(() => 'full')).resolves.toBe('degraded');
  });

  it('bulkhead, rateLimiter, loadShedder, cache, timeout take their options and names', async () => {
    const clock = new TestClock(T0);
    const b = fromConfig({ policies: [{ type: 'bulkhead', limit: 2, queue: 1, name: 'bh' }] }, {}, { clock });
    expect(at<{ limit: number; queueLimit: number; name: string }>(b)).toMatchObject({ limit: 2, queueLimit: 1, name: 'bh' });
    const rl = fromConfig({ policies: [{ type: 'rateLimiter', algorithm: { kind: 'tokenBucket', rate: 1, burst: 1 }, name: 'rl' }] }, {}, { clock });
    expect(at<{ name: string }>(rl).name).toBe('rl');
    await rl.execute(() => 1);
    await expect(rl.execute(() => 1)).rejects.toSatisfy(isRateLimitedError);
    const c = fromConfig({ policies: [{ type: 'cache', ttlMs: 100, staleWhileRevalidateMs: 5, name: 'c' }] }, {}, { clock });
    expect(at<{ ttlMs: number; staleWhileRevalidateMs: number; name: string }>(c)).toMatchObject({ ttlMs: 100, staleWhileRevalidateMs: 5, name: 'c' });
    const t = fromConfig({ policies: [{ type: 'timeout', ms: 9, mode: 'cooperative', name: 't' }] }, {}, { clock });
    expect(at<{ ms: number; mode: string; name: string }>(t)).toMatchObject({ ms: 9, mode: 'cooperative', name: 't' });
    const ls = fromConfig({ policies: [{ type: 'loadShedder', cpu: 'cpu', name: 'ls' }] }, { cpu: () => 0 }, { clock });
    expect(at<{ name: string }>(ls).name).toBe('ls');
  });
});

describe('lib/config/entries.ts: what changes in place on reload', () => {
  it('retry options, breaker tuning and decision-tree thresholds change in place', async () => {
    const clock = new TestClock(T0);
    const configs = new BehaviorSubject<unknown>({
      policies: [
        { type: 'retry', maxAttempts: 2, backoff: { kind: 'constant', ms: 0 } },
        { type: 'circuitBreaker', strategy: 'consecutiveFailures', threshold: 5 },
        { type: 'degrade', when: { decisionTree: { qpsHigh: 100, qpsMid: 5 } }, to: 'f' },
      ],
    });
    const p = fromConfig(configs, { f: () => 'f' }, { clock });
    configs.next({
      policies: [
        { type: 'retry', maxAttempts: 4, backoff: { kind: 'constant', ms: 0 } },
        { type: 'circuitBreaker', strategy: 'consecutiveFailures', threshold: 1 },
        { type: 'degrade', when: { decisionTree: { qpsHigh: 7, qpsMid: 5 } }, to: 'f' },
      ],
    });
    expect(at0<{ maxAttempts: number }>(p, 0).maxAttempts).toBe(4);
    expect(at0<{ decision: { thresholds: { qpsHigh: number } } }>(p, 2).decision.thresholds.qpsHigh).toBe(7);
    configs.next({
      policies: [
        { type: 'retry', maxAttempts: 4, backoff: { kind: 'constant', ms: 0 } },
        { type: 'circuitBreaker', strategy: 'consecutiveFailures', threshold: 1 },
        { type: 'degrade', when: { decisionTree: {} }, to: 'f' },
      ],
    });
    // thresholds left out go back to their documented defaults (qpsHigh 5000)
    expect(at0<{ decision: { thresholds: { qpsHigh: number } } }>(p, 2).decision.thresholds.qpsHigh).toBe(5_000);
    // the breaker now trips after one failure
    let calls = 0;
    const r = p.execute(() => (calls++, Promise.reject(new Error('x')))).catch(() => undefined);
    await clock.runAll();
    await r;
    expect(calls).toBe(4);
    expect(at0<{ state: string }>(p, 1).state).toBe('open');
  });
});

function at0<P>(p: { pipeline: { policies: readonly unknown[] } }, i: number): P {
  return p.pipeline.policies[i] as P;
}

describe('lib/strategies/write-behind: events, defaults, order and batches', () => {
  const down = () => Promise.reject(new Error('down'));

  it('defaults: named "writeBehind", a 1000 ms timeout, replays every 1000 ms; ids carry the time and a sequence', async () => {
    const { writeBehind } = await import('../../../api/index.js');
    const clock = new TestClock(T0);
    let up = false;
    const got: number[] = [];
    const w = writeBehind<number>({ deliver: (n) => (up ? void got.push(n) : down()), clock, random: () => 0 });
    expect(w.name).toBe('writeBehind');
    expect(w.pipeline.policies.map((p) => p.name)).toEqual(['writeBehind.timeout', 'writeBehind.breaker']);
    expect((w.pipeline.policies[0] as unknown as { ms: number }).ms).toBe(1_000);
    const events = collect(w);
    const r1 = await w.write(1);
    const r2 = await w.write(2, { key: 'k' });
    expect(r1).toEqual({ status: 'queued', id: `${T0.toString(36)}-0-0` });
    expect(r2).toEqual({ status: 'queued', id: `${T0.toString(36)}-1-0` });
    expect(events.filter((e) => e.type === 'writeQueued')).toEqual([
      { type: 'writeQueued', policy: 'writeBehind', id: r1.id, key: '' },
      { type: 'writeQueued', policy: 'writeBehind', id: r2.id, key: 'k' },
    ]);
    up = true;
    await clock.advance(999);
    expect(got).toEqual([]);
    await clock.advance(1);
    expect(got).toEqual([1, 2]);
    expect(events.filter((e) => e.type === 'replayed')).toEqual([
      { type: 'replayed', policy: 'writeBehind', id: r1.id, key: '' },
      { type: 'replayed', policy: 'writeBehind', id: r2.id, key: 'k' },
    ]);
    expect(clock.pendingTimers).toBe(0);
  });

  it('a replay round takes at most `batch` writes; the next round takes the rest', async () => {
    const { writeBehind } = await import('../../../api/index.js');
    const clock = new TestClock(T0);
    let up = false;
    const got: number[] = [];
    const w = writeBehind<number>({ deliver: (n) => (up ? void got.push(n) : down()), batch: 2, replayIntervalMs: 10, breaker: { protection: 1_000, tripFailures: 1_000 }, clock });
    for (let n = 1; n <= 5; n++) await w.write(n, { key: `k${n}` });
    up = true;
    await clock.advance(10);
    expect(got).toEqual([1, 2]);
    await clock.advance(10);
    expect(got).toEqual([1, 2, 3, 4]);
    await clock.advance(10);
    expect(got).toEqual([1, 2, 3, 4, 5]);
  });

  it('counts the writes still waiting per key as a round replays some of them', async () => {
    const { writeBehind } = await import('../../../api/index.js');
    const clock = new TestClock(T0);
    let up = false;
    const got: number[] = [];
    const w = writeBehind<number>({ deliver: (n) => (up ? void got.push(n) : down()), keyOf: () => 'a', batch: 1, replayIntervalMs: 10, breaker: { protection: 1_000, tripFailures: 1_000 }, clock });
    for (let n = 1; n <= 3; n++) await w.write(n);
    up = true;
    await clock.advance(10);
    expect(got).toEqual([1]);
    expect(w.queued).toBe(2);
    // key 'a' still has writes waiting: a new one queues behind them
    await expect(w.write(4)).resolves.toMatchObject({ status: 'queued' });
    await clock.advance(30);
    expect(got).toEqual([1, 2, 3, 4]);
    expect(w.queued).toBe(0);
  });

  it('a write that fails in a round holds back later writes of its key only', async () => {
    const { writeBehind } = await import('../../../api/index.js');
    const clock = new TestClock(T0);
    let up = false;
    const got: string[] = [];
    const w = writeBehind<string>({
      deliver: (s) => (up && s !== 'a1' ? void got.push(s) : down()),
      keyOf: (s) => s[0]!,
      replayIntervalMs: 10,
      breaker: { protection: 1_000, tripFailures: 1_000 },
      clock,
    });
    for (const s of ['a1', 'a2', 'b1']) await w.write(s);
    up = true;
    await clock.advance(10);
    expect(got).toEqual(['b1']);
    expect(w.queued).toBe(2);
  });

  it('a round ends at an open breaker', async () => {
    const { writeBehind } = await import('../../../api/index.js');
    const clock = new TestClock(T0);
    let calls = 0;
    const w = writeBehind<string>({
      deliver: () => {
        calls++;
        return Promise.reject(new BrokenCircuitError('downstream'));
      },
      keyOf: (s) => s,
      replayIntervalMs: 10,
      breaker: { protection: 1_000, tripFailures: 1_000 },
      clock,
    });
    for (const s of ['a', 'b', 'c']) await w.write(s);
    expect(calls).toBe(3);
    await clock.advance(10);
    expect(calls).toBe(4);
  });

  it('a successful direct write starts a replay at once when writes are waiting', async () => {
    const { writeBehind } = await import('../../../api/index.js');
    const clock = new TestClock(T0);
    let up = false;
    const got: string[] = [];
    const w = writeBehind<string>({ deliver: (s) => (up ? void got.push(s) : down()), keyOf: (s) => s, replayIntervalMs: 60_000, breaker: { protection: 1_000, tripFailures: 1_000 }, clock });
    await w.write('a');
    up = true;
    await w.write('b');
    await w.replay();
    expect(got).toEqual(['b', 'a']);
    expect(clock.pendingTimers).toBe(0);
  });

  it('an aborted write throws instead of queueing; a closed writer schedules nothing', async () => {
    const { writeBehind } = await import('../../../api/index.js');
    const clock = new TestClock(T0);
    const w = writeBehind<string>({ deliver: () => down(), breaker: { protection: 1_000, tripFailures: 1_000 }, clock });
    const ac = new AbortController();
    ac.abort(new Error('gone'));
    await expect(w.write('x', { signal: ac.signal })).rejects.toBe(ac.signal.reason);
    expect(w.queued).toBe(0);
    w.close();
    await expect(w.write('y')).resolves.toMatchObject({ status: 'queued' });
    expect(clock.pendingTimers).toBe(0);
  });

  it('from config: a store that is not a WriteQueue and a missing keyOf are listed; env clock is used', async () => {
    expect(issuesOf(() => fromConfig({ strategy: 'writeBehind', deliver: 'd', keyOf: 'k', store: 's' }, { d: () => 1, s: {} }))).toEqual([
      { path: 'keyOf', message: 'no handler named "k" was given' },
      { path: 'store', message: 'handler "s" must be a WriteQueue (push, peek, ack)' },
    ]);
    expect(issuesOf(() => fromConfig({ strategy: 'writeBehind', deliver: 'd', batch: 0 }, { d: () => 1 }))).toEqual([{ path: 'batch', message: 'expected an integer >= 1' }]);
    const clock = new TestClock(T0);
    const w = fromConfig({ strategy: 'writeBehind', deliver: 'd', name: 'outbox', replayIntervalMs: 7 }, { d: () => down() }, { clock, random: () => 0 });
    expect(w.name).toBe('outbox');
    const r = await w.write(1);
    expect(r.id).toBe(`${T0.toString(36)}-0-0`);
    expect(clock.pendingTimers).toBe(1);
    w.close();
  });
});
