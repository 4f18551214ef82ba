import { BehaviorSubject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { EntryConfig } from '../../config/entries.js';
import { ConfigPipeline, read, type Parsed } from '../../config/pipeline.js';
import { ConfigError, isConfigError } from '../../lib/errors.js';
import type { PolicyEvent } from '../../lib/events.js';
import { TestClock } from '../../lib/testing.js';
import { fromConfig } from '../../config/from-config.js';
import { memoryCacheStore } from '../../policies/cache/index.js';
import type { CircuitBreakerPolicy } from '../../policies/circuit-breaker/circuit-breaker.js';
import { track } from '../helpers/track.js';

/** A parser of `{ ms }` or `{ ms, fallback }` documents, standing in for the schemas or the strategies' rules. */
function parse(config: unknown): Parsed {
  const c = config as { ms?: unknown; fallback?: string };
  if (typeof c.ms !== 'number') throw new ConfigError('config', [{ path: 'ms', message: 'expected a number' }]);
  const entries = [{ type: 'timeout', ms: c.ms }, ...(c.fallback ? [{ type: 'fallback', handler: c.fallback }] : [])] as EntryConfig[];
  return { name: 'p', strategy: undefined, entries, paths: entries.map((_, i) => `policies[${i}]`), extra: {}, bind: undefined };
}

describe('ConfigPipeline', () => {
  it('builds its policies from what its parser gives, and reports missing handlers all at once', () => {
    const p = new ConfigPipeline(parse({ ms: 10 }), {}, {}, parse);
    expect(p.pipeline.policies.map((x) => x.name)).toEqual(['timeout']);
    try {
      new ConfigPipeline(parse({ ms: 10, fallback: 'nope' }), {}, {}, parse);
      expect.unreachable();
    } catch (e) {
      expect(isConfigError(e) && e.issues).toEqual([{ path: 'policies[1].handler', message: 'no handler named "nope" was given' }]);
    }
  });

  it('update: applies a change in place with its own parser, refuses an invalid one, keeps the last good', async () => {
    const clock = new TestClock(0);
    const p = new ConfigPipeline<never>(parse({ ms: 100 }), {}, { clock }, parse);
    const events: PolicyEvent[] = [];
    p.events$.subscribe((e) => events.push(e));
    expect(p.update({ ms: 20 })).toBe(true);
    expect(p.update({ ms: 'soon' })).toBe(false);
    expect(p.update({ ms: 20, fallback: 'f' })).toBe(false);
    expect(events.filter((e) => e.type.startsWith('config')).map((e) => [e.type, (e as { reason?: string }).reason])).toEqual([
      ['configApplied', undefined],
      ['configRejected', 'invalid'],
      ['configRejected', 'invalid'],
    ]);
    const call = p.execute(() => new Promise<never>(() => undefined));
    const settled = expect(call).rejects.toMatchObject({ name: 'TimeoutError' });
    await clock.advance(20);
    await settled;
    expect(p.config).toEqual([{ type: 'timeout', ms: 20 }]);
  });

  it('read: applies the document parser, and turns its throw into a ConfigError', () => {
    expect(read('{"ms":1}', { parse: JSON.parse as (d: never) => unknown })).toEqual({ ms: 1 });
    expect(read({ ms: 1 }, {})).toEqual({ ms: 1 });
    expect(() => read('{', { parse: JSON.parse as (d: never) => unknown })).toThrow(/the document could not be parsed/);
  });
});

describe('ConfigPipeline: a reload that adds, removes, renames or reorders policies rebuilds around the kept ones', () => {
  const breakerEntry = { type: 'circuitBreaker', strategy: 'consecutiveFailures', threshold: 2, openMs: 10_000, name: 'db' };
  const failing = (): Promise<string> => Promise.reject(new Error('down'));

  it('keeps the breaker it had (open, as it was), adds a retry, and drops what the config removes', async () => {
    const clock = new TestClock(0);
    const p = fromConfig({ policies: [{ type: 'timeout', ms: 100 }, breakerEntry, { type: 'fallback', handler: 'a' }] }, { a: () => 'A', b: () => 'B' }, { clock });
    const events: PolicyEvent[] = [];
    p.events$.subscribe((e) => events.push(e));
    const breaker = p.pipeline.policies[1] as CircuitBreakerPolicy;
    const old = p.pipeline;
    await p.execute(failing);
    await p.execute(failing);
    expect(breaker.state).toBe('open');
    // a retry added inside the breaker, the timeout removed, the fallback renamed (a new one, with handler b)
    expect(p.update({ policies: [{ type: 'retry', maxAttempts: 2, backoff: { kind: 'constant', ms: 0 } }, { ...breakerEntry, threshold: 3 }, { type: 'fallback', handler: 'b', name: 'fb2' }] })).toBe(true);
    expect(p.pipeline).not.toBe(old);
    expect(p.pipeline.policies.map((x) => x.constructor.name)).toEqual(['RetryPolicy', 'CircuitBreakerPolicy', 'FallbackPolicy']);
    expect(p.pipeline.policies[1]).toBe(breaker);
    // still open: the new fallback answers without a call
    let calls = 0;
    expect(await p.execute(() => (calls++, Promise.resolve('real')))).toBe('B');
    expect(calls).toBe(0);
    // the kept breaker's events, and the new retry's, reach a subscriber of before the reload
    await clock.advance(10_000);
    expect(await p.execute(failing)).toBe('B');
    const types = events.map((e) => `${e.policy}:${e.type}`);
    expect(types).toContain('config:configApplied');
    expect(types).toContain('db:stateChange');
    expect(types).toContain('retry:retry');
    expect(events.find((e) => e.type === 'configApplied')).toEqual({ type: 'configApplied', policy: 'config', version: 2, rebuilt: true });
  });

  it('a call running when the pipeline is rebuilt finishes in the one it started in', async () => {
    const clock = new TestClock(0);
    const p = fromConfig({ policies: [{ type: 'timeout', ms: 100 }, { type: 'fallback', handler: 'a' }] }, { a: () => 'A', b: () => 'B' }, { clock });
    const deaf = () => new Promise<string>(() => undefined);
    const before = track(p.execute(deaf), clock);
    expect(p.update({ policies: [{ type: 'timeout', ms: 20 }, { type: 'fallback', handler: 'b', name: 'other' }] })).toBe(true);
    const after = track(p.execute(deaf), clock);
    await clock.advance(100);
    expect(before.now).toEqual({ ok: true, value: 'A', at: 100 });
    expect(after.now).toEqual({ ok: true, value: 'B', at: 20 });
  });

  it('matches unnamed entries of a type in order, and reorders policies without losing their state', async () => {
    const clock = new TestClock(0);
    const p = fromConfig({ policies: [{ type: 'bulkhead', limit: 1, queue: 0 }, { type: 'timeout', ms: 50 }] }, {}, { clock });
    const [bulkhead, timeout] = p.pipeline.policies;
    const running = p.execute(() => new Promise<string>(() => undefined)).catch((e: Error) => e.name);
    expect(p.update({ policies: [{ type: 'timeout', ms: 50 }, { type: 'bulkhead', limit: 1, queue: 0 }] })).toBe(true);
    expect(p.pipeline.policies).toEqual([timeout, bulkhead]);
    // the bulkhead still holds the call that runs: a second is refused
    await expect(p.execute(async () => 'ok')).rejects.toMatchObject({ name: 'BulkheadRejectedError' });
    await clock.advance(50);
    expect(await running).toBe('TimeoutError');
  });

  it('refuses the whole reload when a kept policy cannot make its change in place, saying why and what to do', async () => {
    const clock = new TestClock(0);
    const p = fromConfig({ policies: [{ type: 'timeout', ms: 100 }, { type: 'cache', ttlMs: 1_000, store: 'one' }] }, { one: memoryCacheStore(), two: memoryCacheStore() }, { clock });
    const events: PolicyEvent[] = [];
    p.events$.subscribe((e) => events.push(e));
    const old = p.pipeline;
    expect(p.update({ policies: [{ type: 'timeout', ms: 20 }, { type: 'retry' }, { type: 'cache', ttlMs: 1_000, store: 'two' }] })).toBe(false);
    expect(events).toEqual([
      {
        type: 'configRejected',
        policy: 'config',
        reason: 'invalid',
        issues: [{ path: 'policies[2]', message: 'cannot change in place (its store holds the values): keep it as it is, or give it another name to build a new cache (its state starts afresh)' }],
      },
    ]);
    // nothing changed: the same pipeline, the timeout put back to 100 ms
    expect(p.pipeline).toBe(old);
    expect((p.pipeline.policies[0] as unknown as { ms: number }).ms).toBe(100);
    // a new name builds a new cache on the other store
    expect(p.update({ policies: [{ type: 'timeout', ms: 100 }, { type: 'cache', ttlMs: 1_000, store: 'two', name: 'fresh' }] })).toBe(true);
    expect(p.pipeline.policies[1]).not.toBe(old.policies[1]);
  });

  it("another strategy rebuilds; a kept snapshot cache still answers the new strategy's stale fallback", async () => {
    const clock = new TestClock(0);
    const p = fromConfig({ strategy: 'slowCallShield', fallback: 'f' }, { f: () => 'F' }, { clock });
    const cache = p.pipeline.policies[1];
    expect(await p.execute(async () => 'fresh', { key: 'k' })).toBe('fresh');
    expect(p.update({ strategy: 'fallbackChain', fallbacks: ['f'] })).toBe(true);
    expect(p.pipeline.policies.map((x) => x.constructor.name)).toEqual(['TimeoutPolicy', 'CachePolicy', 'AdaptiveBreakerPolicy', 'FallbackPolicy']);
    expect(p.pipeline.policies[1]).toBe(cache);
    // past the cache's TTL the call runs, fails, and the stale fallback answers from the kept cache
    await clock.advance(3_600_000);
    expect(await p.execute(() => Promise.reject(new Error('down')), { key: 'k' })).toBe('fresh');
    expect(await p.execute(() => Promise.reject(new Error('down')), { key: 'other' })).toBe('F');
  });
});

describe('ConfigPipeline: what a reload builds and does not keep is let go', () => {
  it("a degrade policy's Observable signal is followed once, by the policy in force, whatever the reloads", () => {
    const cpu = new BehaviorSubject(0.1);
    const entry = (qpsHigh: number) => ({ type: 'degrade', when: { decisionTree: { qpsHigh, qpsMid: 50 } }, signals: { cpu: 'cpu' }, to: 'cached' });
    const p = fromConfig({ policies: [entry(100)] }, { cpu, cached: () => 'cached' }, { clock: new TestClock(0) });
    const followers = () => (cpu as unknown as { observers: unknown[] }).observers.length;
    expect(followers()).toBe(1);
    // kept in place: the copy built to check the config is let go
    expect(p.update({ policies: [entry(200)] })).toBe(true);
    expect(followers()).toBe(1);
    // refused: every copy let go, the one in force kept
    expect(p.update({ policies: [entry(200), { type: 'timeout', ms: 0 }] })).toBe(false);
    expect(p.update({ policies: [{ ...entry(200), to: 'missing' }] })).toBe(false);
    expect(followers()).toBe(1);
    // removed: the dropped policy lets go too
    expect(p.update({ policies: [{ type: 'timeout', ms: 10 }] })).toBe(true);
    expect(followers()).toBe(0);
  });
});
