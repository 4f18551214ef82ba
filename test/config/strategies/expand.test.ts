import { describe, expect, it } from 'vitest';
import { isConfigError } from '../../../api/index.js';
import { fromConfig } from '../../../api/config.js';
import { TestClock } from '../../../lib/testing.js';
import { issuesOf } from '../../helpers/config-issues.js';

const T0 = 1_700_000_000_000;

describe('config/strategies/expand.ts: chains, defaults and error paths', () => {
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
