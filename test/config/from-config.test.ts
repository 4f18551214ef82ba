import { BehaviorSubject, concat, map, of, ReplaySubject, Subject, throwError } from 'rxjs';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it, vi } from 'vitest';
import { AdaptiveLimiterPolicy, ConfigError, RetryPolicy, fallback, memoryCacheStore, memoryStore, pipe, timeout, TimeoutError, type PolicyEvent } from '../../api/index.js';
import { fromConfig } from '../../api/config.js';
import { TestClock } from '../../lib/testing.js';
import { rejection, track } from '../helpers/track.js';
import { collect } from '../helpers/breakers.js';

const START = 1_700_000_000_000;
const T0 = START;

const never = () => new Promise<never>(() => {});

describe('fromConfig', () => {
  it("a retry entry's maxDelayMs caps a Retry-After: beyond it the call gives up at once", async () => {
    const clock = new TestClock(0);
    const p = fromConfig({ policies: [{ type: 'retry', maxAttempts: 3, maxDelayMs: 1_000 }] }, {}, { clock });
    const hinted = Object.assign(new Error('503'), { retryAfterMs: 5_000 });
    let calls = 0;
    const run = track(p.execute(() => (calls++, Promise.reject(hinted))), clock);
    await clock.advance(0);
    expect(await rejection(run)).toBe(hinted);
    expect(calls).toBe(1);
    expect(() => fromConfig({ policies: [{ type: 'retry', maxDelayMs: -1 }] })).toThrow(/policies\[0\]\.maxDelayMs/);
  });

  it("a keyedBreaker entry's idleMs must be greater than 0, as the registry requires", () => {
    expect(() => fromConfig({ policies: [{ type: 'keyedBreaker', metaKey: 'tenant', idleMs: 0 }] })).toThrow(/policies\[0\]\.idleMs: expected a number greater than 0/);
  });

  it('builds every policy type from JSON, innermost first', async () => {
    const clock = new TestClock(START);
    const json = JSON.parse(`{
      "name": "users",
      "policies": [
        { "type": "timeout", "ms": 50 },
        { "type": "retry", "maxAttempts": 2, "backoff": { "kind": "constant", "ms": 10 }, "budget": { "kind": "token", "ratio": 0.5 } },
        { "type": "hedge", "afterFailure": true },
        { "type": "chaos", "fault": "boom", "injectionRate": 0, "enabled": false },
        { "type": "cache", "ttlMs": 1000 },
        { "type": "degrade", "when": { "decisionTree": { "qpsHigh": 100, "qpsMid": 50 } }, "signals": { "cpu": 0 }, "to": "cached" },
        { "type": "loadShedder", "cpu": "cpu" },
        { "type": "fallbackChain", "handlers": ["cached", "guest"] },
        { "type": "fallback", "handler": "guest" }
      ]
    }`);
    const p = fromConfig(json, { cached: () => 'cached', guest: () => 'guest', boom: () => new Error('x'), cpu: () => 0 }, { clock });
    expect(p.pipeline.policies.map((x) => x.name)).toEqual([
      'timeout',
      'retry',
      'hedge',
      'chaos',
      'cache',
      'degrade',
      'loadShedder',
      'fallbackChain',
      'fallback',
    ]);
    let calls = 0;
    const r = track(
      p.execute(
        () => {
          calls++;
          return new Promise(() => {});
        },
        { key: 'k' },
      ),
      clock,
    );
    await clock.advance(1_000);
    // two attempts of 50 ms with 10 ms between; the hedge starts a second round of two after that failure
    expect(await r.settled).toMatchObject({ ok: true, value: 'cached', at: START + 220 });
    expect(calls).toBe(4);
  });

  it('an adaptiveLimiter entry builds the limiter with its options, its isOverload named in handlers', async () => {
    const clock = new TestClock(START);
    const overloaded = new Error('503');
    const config = { policies: [{ type: 'timeout', ms: 30 }, { type: 'adaptiveLimiter', name: 'users', initialLimit: 4, minSamples: 2, windowMs: 1, isOverload: 'is503' }] };
    const p = fromConfig(config, { is503: (e: unknown) => e === overloaded }, { clock });
    const limiter = p.pipeline.policies[1] as AdaptiveLimiterPolicy;
    expect(limiter).toBeInstanceOf(AdaptiveLimiterPolicy);
    expect(limiter.stats()).toMatchObject({ limit: 4, inFlight: 0 });
    for (let i = 0; i < 2; i++) {
      const r = track(p.execute(() => new Promise((_, reject) => clock.setTimeout(() => reject(overloaded), 5))), clock);
      await clock.advance(5);
      await r.settled;
    }
    expect(limiter.limit).toBe(3);
    expect(() => fromConfig(config, {})).toThrow(/policies\[1\]\.isOverload/);
    expect(() => fromConfig({ policies: [{ type: 'adaptiveLimiter', initialLimit: 500 }] })).toThrow(/policies\[0\]\.initialLimit: must be between minLimit \(1\) and maxLimit \(200\)/);
    // Its limit is state it learned: a reload changes its bounds in place and keeps the limit it reached.
    expect(p.update({ policies: [config.policies[0], { ...config.policies[1], maxLimit: 50 }] })).toBe(true);
    expect(p.pipeline.policies[1]).toBe(limiter);
    expect([limiter.limit, limiter.maxLimit]).toEqual([3, 50]);
  });

  it('lists every problem at once, each with its path', () => {
    try {
      fromConfig(
        {
          policies: [
            { type: 'timeout', ms: -1 },
            { type: 'retry', maxAttempts: 1.5, backoff: { kind: 'exponential', jitter: 'wild' } },
            { type: 'fallback', handler: 'nope' },
            { type: 'warp', speed: 9 },
            { type: 'timeout', ms: 5, extra: true },
          ],
        },
        {},
      );
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      const paths = (e as ConfigError).issues.map((i) => i.path);
      expect(paths).toEqual(expect.arrayContaining(['policies[0].ms', 'policies[1].maxAttempts', 'policies[1].backoff.jitter', 'policies[3].type', 'policies[4].extra']));
    }
  });

  it('a missing or ill-typed handler name is a ConfigError naming the path', () => {
    const build = () =>
      fromConfig(
        { policies: [{ type: 'fallbackChain', handlers: ['a', 'b'] }, { type: 'retry', handle: 'isRetryable' }] },
        { a: () => 1, b: 42 },
      );
    expect(build).toThrow(ConfigError);
    try {
      build();
    } catch (e) {
      expect((e as ConfigError).issues).toEqual([
        { path: 'policies[0].handlers[1]', message: 'handler "b" must be a function' },
        { path: 'policies[1].handle', message: 'no handler named "isRetryable" was given' },
      ]);
    }
  });

  it('every option that names a handler reports a missing one, or one of the wrong kind, at its own path', () => {
    const issuesOf = (entry: Record<string, unknown>, handlers: Record<string, unknown>) => {
      try {
        fromConfig({ policies: [entry] }, handlers);
      } catch (e) {
        expect(e).toBeInstanceOf(ConfigError);
        return (e as ConfigError).issues;
      }
      throw new Error(`expected a ConfigError for ${JSON.stringify(entry)}`);
    };
    const fn = () => true;
    const cases: [Record<string, unknown>, string][] = [
      [{ type: 'retry' }, 'handle'],
      [{ type: 'retry' }, 'handleResult'],
      [{ type: 'hedge', delayMs: 10 }, 'handle'],
      [{ type: 'hedge', delayMs: 10 }, 'handleResult'],
      [{ type: 'chaos', injectionRate: 0.1 }, 'fault'],
      [{ type: 'chaos', injectionRate: 0.1 }, 'result'],
      [{ type: 'chaos', injectionRate: 0.1 }, 'latency'],
      [{ type: 'chaos', injectionRate: 0.1, latency: 5 }, 'enabled'],
      [{ type: 'fallback', handler: 'ok' }, 'handle'],
      [{ type: 'fallback', handler: 'ok' }, 'handleResult'],
      [{ type: 'fallback' }, 'handler'],
      [{ type: 'sreBreaker' }, 'handle'],
      [{ type: 'sreBreaker' }, 'handleResult'],
      [{ type: 'keyedBreaker' }, 'keyOf'],
      [{ type: 'adaptiveLimiter' }, 'isOverload'],
      [{ type: 'idempotent' }, 'key'],
      [{ type: 'idempotent' }, 'handleResult'],
      [{ type: 'cache', ttlMs: 1_000 }, 'key'],
      [{ type: 'cache', ttlMs: 1_000 }, 'handleResult'],
    ];
    for (const [entry, option] of cases) {
      expect(issuesOf({ ...entry, [option]: 'missing' }, { ok: fn }), `${entry.type as string}.${option}`).toEqual([
        { path: `policies[0].${option}`, message: 'no handler named "missing" was given' },
      ]);
      expect(issuesOf({ ...entry, [option]: 'bad' }, { ok: fn, bad: 42 }), `${entry.type as string}.${option}`).toEqual([
        { path: `policies[0].${option}`, message: 'handler "bad" must be a function' },
      ]);
    }
    // Values that are not functions: each says what it expected.
    expect(issuesOf({ type: 'loadShedder', cpu: 'bad' }, { bad: 'high' })).toEqual([{ path: 'policies[0].cpu', message: 'handler "bad" must be a number, a function or an Observable' }]);
    expect(issuesOf({ type: 'loadShedder', cpu: 'bad' }, { bad: null })).toEqual([{ path: 'policies[0].cpu', message: 'handler "bad" must be a number, a function or an Observable' }]);
    expect(issuesOf({ type: 'idempotent', store: 'bad' }, { bad: 42 })).toEqual([{ path: 'policies[0].store', message: 'handler "bad" must be an IdempotencyStore' }]);
    expect(issuesOf({ type: 'idempotent', codec: 'bad' }, { bad: null })).toEqual([{ path: 'policies[0].codec', message: 'handler "bad" must be a codec' }]);
    expect(issuesOf({ type: 'cache', ttlMs: 1_000, store: 'bad' }, { bad: { set: fn } })).toEqual([{ path: 'policies[0].store', message: 'handler "bad" must be a CacheStore' }]);
  });

  it('a store or codec named in an entry is the one the policy uses', async () => {
    const shared = memoryStore();
    const codec = { encode: vi.fn((v: unknown) => JSON.stringify(v)), decode: vi.fn((t: string) => JSON.parse(t) as unknown) };
    const config = { policies: [{ type: 'idempotent', store: 'orders', codec: 'json' }] };
    const a = fromConfig(config, { orders: shared, json: codec });
    const b = fromConfig(config, { orders: shared, json: codec });
    let runs = 0;
    await expect(a.execute(() => ++runs, { key: 'o-1' })).resolves.toBe(1);
    await expect(b.execute(() => ++runs, { key: 'o-1' })).resolves.toBe(1);
    expect(runs).toBe(1);
    expect(codec.encode).toHaveBeenCalledWith(1);
    expect(codec.decode).toHaveBeenCalledWith('1');
    const cacheStore = memoryCacheStore();
    const set = vi.spyOn(cacheStore, 'set');
    const cached = fromConfig({ policies: [{ type: 'cache', ttlMs: 1_000, store: 'pages' }] }, { pages: cacheStore });
    await expect(cached.execute(() => 'page', { key: 'home' })).resolves.toBe('page');
    expect(set).toHaveBeenCalledTimes(1);
    expect(set.mock.calls[0]![0]).toContain('home');
  });

  describe('every refusal is a ConfigError of the policy "config", naming the path', () => {
    /** The ConfigError `build` throws, as policy, message head and issues. */
    function refusal(build: () => unknown): { policy: string; head: string; issues: readonly { path: string; message: string }[] } {
      try {
        build();
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        const e = error as ConfigError;
        return { policy: e.policy, head: e.message.slice(0, 23), issues: e.issues };
      }
      throw new Error('built');
    }
    const refused = (issues: { path: string; message: string | RegExp }[]) => ({
      policy: 'config',
      head: 'invalid config options:',
      issues: issues.map((i) => ({ path: i.path, message: typeof i.message === 'string' ? i.message : expect.stringMatching(i.message) })),
    });

    it('a document that is not a config object', () => {
      for (const doc of [null, 'text', 5]) expect(refusal(() => fromConfig(doc))).toEqual(refused([{ path: '', message: /expected object/ }]));
    });

    it('a document its parse function cannot read', () => {
      const parse = () => {
        throw new Error('bad yaml');
      };
      expect(refusal(() => fromConfig('x: [', {}, { parse }))).toEqual(refused([{ path: '', message: 'the document could not be parsed: Error: bad yaml' }]));
    });

    it('an entry, a strategy and a writer its schema refuses', () => {
      expect(refusal(() => fromConfig({ policies: [{ type: 'timeout', ms: -1 }] }))).toEqual(refused([{ path: 'policies[0].ms', message: /./ }]));
      expect(refusal(() => fromConfig({ strategy: 'standard', timeoutMs: -1, fallback: 'f' }))).toEqual(refused([{ path: 'timeoutMs', message: /./ }]));
      expect(refusal(() => fromConfig({ strategy: 'writeBehind' }))).toEqual(refused([{ path: 'deliver', message: /./ }]));
    });

    it('a handler missing, of the wrong kind, or refused by the policy it is given to', () => {
      expect(refusal(() => fromConfig({ policies: [{ type: 'fallback', handler: 'gone' }] }))).toEqual(
        refused([{ path: 'policies[0].handler', message: 'no handler named "gone" was given' }]),
      );
      expect(refusal(() => fromConfig({ policies: [{ type: 'cache', ttlMs: 1_000, store: 'gone' }] }))).toEqual(
        refused([{ path: 'policies[0].store', message: 'no handler named "gone" was given' }]),
      );
      expect(refusal(() => fromConfig({ strategy: 'writeBehind', deliver: 'gone' }))).toEqual(refused([{ path: 'deliver', message: 'no handler named "gone" was given' }]));
      expect(refusal(() => fromConfig({ policies: [{ type: 'cache', ttlMs: 1_000, store: 's' }] }, { s: { get() {} } }))).toEqual(
        refused([{ path: 'policies[0].store', message: 'expected a CacheStore (get, set, delete)' }]),
      );
    });

    it('a config stream with no first config', () => {
      expect(refusal(() => fromConfig(new Subject<unknown>()))).toEqual(
        refused([{ path: '', message: 'the config stream must emit its first config on subscription (a BehaviorSubject or startWith)' }]),
      );
    });

    it('an error that is not a ConfigError, thrown while a policy is built, is rethrown as it is', () => {
      const boom = new Error('boom');
      // the cache's own option check reads the store's methods
      const store = {
        get() {},
        set() {},
        get delete(): never {
          throw boom;
        },
      };
      expect(() => fromConfig({ policies: [{ type: 'cache', ttlMs: 1_000, store: 's' }] }, { s: store })).toThrow(boom);
    });
  });

  describe('hot reload', () => {
    it('changes a timeout in place on the next call', async () => {
      const clock = new TestClock(START);
      const configs = new BehaviorSubject<unknown>({ policies: [{ type: 'timeout', ms: 100 }] });
      const p = fromConfig(configs, {}, { clock });
      const events: PolicyEvent[] = [];
      p.events$.subscribe((e) => events.push(e));
      const first = track(p.execute(() => new Promise(() => {})), clock);
      configs.next({ policies: [{ type: 'timeout', ms: 20 }] });
      const second = track(p.execute(() => new Promise(() => {})), clock);
      await clock.advance(100);
      expect(await rejection(first)).toBeInstanceOf(TimeoutError);
      expect(first.now!.at).toBe(START + 100);
      expect(second.now!.at).toBe(START + 20);
      expect(events.filter((e) => e.type === 'configApplied')).toEqual([{ type: 'configApplied', policy: 'config', version: 2, rebuilt: false }]);
    });

    it('refuses an invalid config with an event, and keeps the last good one', async () => {
      const clock = new TestClock(START);
      const configs = new BehaviorSubject<unknown>({ name: 'db', policies: [{ type: 'retry', maxAttempts: 3, backoff: { kind: 'constant', ms: 0 } }] });
      const p = fromConfig(configs, {}, { clock });
      const rejected: PolicyEvent[] = [];
      p.events$.subscribe((e) => e.type === 'configRejected' && rejected.push(e));
      configs.next({ name: 'db', policies: [{ type: 'retry', maxAttempts: 0 }] });
      configs.next({ name: 'db', policies: [{ type: 'timeout', ms: 0 }] });
      configs.next({ name: 'db', policies: [{ type: 'retry', handle: 'missing' }] });
      expect(rejected.map((e) => (e.type === 'configRejected' ? [e.reason, e.issues[0]!.path] : []))).toEqual([
        ['invalid', 'policies[0].maxAttempts'],
        ['invalid', 'policies[0].ms'],
        ['invalid', 'policies[0].handle'],
      ]);
      let calls = 0;
      await p
        .execute(() => {
          calls++;
          throw new Error('x');
        })
        .catch(() => undefined);
      expect(calls).toBe(3);
      p.dispose();
      expect(configs.observed).toBe(false);
    });

    it('refuses a change a policy cannot make in place, changing nothing; an unchanged entry does not stop a change elsewhere', async () => {
      const clock = new TestClock(START);
      const handlers = { a: () => 'A', b: () => 'B' };
      const configs = new BehaviorSubject<unknown>({ policies: [{ type: 'timeout', ms: 100 }, { type: 'bulkhead', limit: 2 }, { type: 'fallback', handler: 'a' }] });
      const p = fromConfig(configs, handlers, { clock });
      const events: PolicyEvent[] = [];
      p.events$.subscribe((e) => (e.type === 'configRejected' || e.type === 'configApplied') && events.push(e));
      const deaf = () => new Promise<string>(() => {});
      // the bulkhead's partitions and the cache's store cannot change in place: refused, and the timeout change is put back
      expect(p.update({ policies: [{ type: 'timeout', ms: 20 }, { type: 'bulkhead', limit: 2, partitions: { live: 1 } }, { type: 'fallback', handler: 'a' }] })).toBe(false);
      expect(events).toEqual([
        {
          type: 'configRejected',
          policy: 'config',
          reason: 'invalid',
          issues: [{ path: 'policies[1].partitions', message: 'cannot change in place (it shapes the bookkeeping); build a new bulkhead' }],
        },
      ]);
      const before = track(p.execute(deaf), clock);
      await clock.advance(100);
      expect(before.now).toEqual({ ok: true, value: 'A', at: START + 100 });
      // the same entries, keys in another order, and a new timeout: applied
      expect(p.update({ policies: [{ ms: 20, type: 'timeout' }, { limit: 2, type: 'bulkhead' }, { handler: 'a', type: 'fallback' }] })).toBe(true);
      const after = track(p.execute(deaf), clock);
      await clock.advance(20);
      expect(after.now).toEqual({ ok: true, value: 'A', at: START + 120 });
      expect(events.at(-1)).toEqual({ type: 'configApplied', policy: 'config', version: 2, rebuilt: false });
    });

    it('degrade: only the decision tree thresholds change in place', () => {
      const handlers = { cached: () => 'cached', other: () => 'other', cpu: () => 0.1 };
      const entry = (to: string, qpsHigh: number) => ({ policies: [{ type: 'degrade', when: { decisionTree: { qpsHigh, qpsMid: 50 } }, signals: { cpu: 'cpu' }, to }] });
      const p = fromConfig(entry('cached', 100), handlers, { clock: new TestClock(START) });
      expect(p.update(entry('cached', 200))).toBe(true);
      expect(p.update(entry('other', 200))).toBe(false);
    });

    it('the stream must start with a config', () => {
      expect(() => fromConfig(new Subject<unknown>(), {})).toThrow(/must emit its first config/);
      expect(() => fromConfig(throwError(() => new Error('no file')), {})).toThrow('the config stream failed before its first config: Error: no file');
    });

    it('a stream error is a rejected reload, reported, never thrown; the last good config keeps serving', async () => {
      const clock = new TestClock(START);
      const configs = new BehaviorSubject<unknown>({ policies: [{ type: 'timeout', ms: 100 }] });
      const p = fromConfig(configs, {}, { clock });
      const events: PolicyEvent[] = [];
      p.events$.subscribe((e) => (e.type === 'configRejected' || e.type === 'configApplied') && events.push(e));
      configs.next({ policies: [{ type: 'timeout', ms: 20 }] });
      expect(() => configs.error(new Error('watcher died'))).not.toThrow();
      expect(events).toEqual([
        { type: 'configApplied', policy: 'config', version: 2, rebuilt: false },
        {
          type: 'configRejected',
          policy: 'config',
          reason: 'error',
          issues: [{ path: '', message: 'the config stream failed and ended: Error: watcher died; the last good config keeps serving' }],
        },
      ]);
      const r = track(p.execute(() => new Promise(() => {})), clock);
      await clock.advance(20);
      expect(await rejection(r)).toBeInstanceOf(TimeoutError);
      expect(r.now!.at).toBe(START + 20);
      // a stream of texts mapped through a parser ends at the first syntax error the same way
      const texts = new BehaviorSubject('policies: []');
      const q = fromConfig(texts.pipe(map((t) => parseYaml(t) as unknown)));
      const reasons: string[] = [];
      q.events$.subscribe((e) => e.type === 'configRejected' && reasons.push(e.reason));
      texts.next('policies: [');
      expect(reasons).toEqual(['error']);
      // and a cold stream that fails after its first config
      const cold = fromConfig(concat(of({ policies: [] }), throwError(() => 'gone')));
      expect(cold.config).toEqual([]);
    });

    it('with parse, an unparseable document is a rejected reload and the stream goes on', async () => {
      const clock = new TestClock(START);
      const yaml = (ms: number) => `policies:\n  - type: timeout\n    ms: ${ms}\n`;
      const texts = new BehaviorSubject(yaml(100));
      const p = fromConfig(texts, {}, { clock, parse: parseYaml });
      const events: PolicyEvent[] = [];
      p.events$.subscribe((e) => (e.type === 'configRejected' || e.type === 'configApplied') && events.push(e));
      texts.next('policies:\n  - type: timeout\n    ms: [50\n');
      expect(events).toMatchObject([{ type: 'configRejected', reason: 'invalid', issues: [{ path: '' }] }]);
      expect(events[0]!.type === 'configRejected' && events[0]!.issues[0]!.message).toMatch(/^the document could not be parsed: YAMLParseError: /);
      const before = track(p.execute(() => new Promise(() => {})), clock);
      await clock.advance(100);
      expect(before.now).toMatchObject({ ok: false, at: START + 100 });
      texts.next(yaml(20));
      expect(events.at(-1)).toEqual({ type: 'configApplied', policy: 'config', version: 2, rebuilt: false });
      expect(p.config).toEqual([{ type: 'timeout', ms: 20, mode: 'aggressive', name: 'timeout' }]);
      expect(() => fromConfig('policies: [', {}, { parse: parseYaml })).toThrow(/the document could not be parsed/);
      expect(fromConfig('{ "strategy": "failFast" }', {}, { parse: JSON.parse }).name).toBe('failFast');
    });
  });
});

describe('config/from-config.ts: hot reload', () => {
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
      { type: 'configApplied', policy: 'edge', version: 2, rebuilt: false },
      { type: 'configApplied', policy: 'edge', version: 3, rebuilt: false },
    ]);
  });

  it('update() says whether it applied, and a rejected config leaves the version where it was', () => {
    const p = fromConfig({ policies: [{ type: 'timeout', ms: 10 }] });
    const events = collect(p);
    expect(p.update({ policies: [{ type: 'timeout', ms: 0 }] })).toBe(false);
    expect(p.update({ policies: [{ type: 'retry', maxAttempts: 0 }] })).toBe(false);
    expect(p.update({ policies: [{ type: 'timeout', ms: 20, mode: 'cooperative' }] })).toBe(true);
    expect(p.pipeline.policies[0]).toMatchObject({ ms: 20, mode: 'cooperative' });
    expect(p.config).toMatchObject([{ type: "timeout", ms: 20 }]);
    expect(events.map((e) => e.type)).toEqual(['configRejected', 'configRejected', 'configApplied']);
    expect(events[2]).toEqual({ type: 'configApplied', policy: 'config', version: 2, rebuilt: false });
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
    // built from the first, then rebuilt for the second
    expect(p.config).toMatchObject([{ type: 'retry' }]);
    expect(p.pipeline.policies).toHaveLength(1);
    expect(p.pipeline.policies[0]).toBeInstanceOf(RetryPolicy);
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

describe('config/from-config.ts: all or nothing when a policy refuses in place', () => {
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
