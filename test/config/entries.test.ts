import { BehaviorSubject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkAs } from '../../config/entries.js';
import { isBrokenCircuitError, isConfigError, isRateLimitedError, type PolicyEvent } from '../../api/index.js';
import { fromConfig } from '../../api/config.js';
import { TestClock } from '../../lib/testing.js';
import { collect } from '../helpers/breakers.js';
import { track } from '../helpers/track.js';
import { issuesOf as configIssuesOf } from '../helpers/config-issues.js';

const T0 = 1_700_000_000_000;

const never = () => new Promise<never>(() => {});

function at0<P>(p: { pipeline: { policies: readonly unknown[] } }, i: number): P {
  return p.pipeline.policies[i] as P;
}

/** The issues `checkAs(schema, value, ['x'])` adds, as path and message. */
function issuesOf(schema: z.ZodType, value: unknown): { path: PropertyKey[]; message: string }[] {
  const r = z
    .unknown()
    .superRefine((v, ctx) => checkAs(schema, v, ['x'], ctx))
    .safeParse(value);
  return r.success ? [] : r.error.issues.map((i) => ({ path: i.path, message: i.message }));
}

describe('checkAs', () => {
  it('adds nothing for a value the schema accepts', () => {
    expect(issuesOf(z.object({ a: z.number() }).strict(), { a: 1 })).toEqual([]);
  });

  it('reports each unknown key under the prefix, one issue per key', () => {
    expect(issuesOf(z.object({ a: z.number() }).strict(), { a: 1, b: 2, c: 3 })).toEqual([
      { path: ['x', 'b'], message: 'unknown option' },
      { path: ['x', 'c'], message: 'unknown option' },
    ]);
  });

  it("reports a union by its closest branch (fewest issues), the first of equally close ones", () => {
    const near = z.object({ k: z.literal('b'), s: z.string(), t: z.string() }).strict();
    const far = z.object({ k: z.literal('a'), n: z.number() }).strict();
    // the closest branch is listed first: a reduce that kept the last or the farthest would say more
    expect(issuesOf(z.union([near, far]), { k: 'b', s: 'x', t: 5 })).toEqual([{ path: ['x', 't'], message: expect.stringMatching(/string/) }]);
    // and last
    expect(issuesOf(z.union([far, near]), { k: 'b', s: 'x', t: 5 })).toEqual([{ path: ['x', 't'], message: expect.stringMatching(/string/) }]);
    const one = z.object({ p: z.string() });
    const other = z.object({ p: z.number() });
    const [tie] = issuesOf(z.union([one, other]), { p: true });
    expect(tie).toEqual({ path: ['x', 'p'], message: expect.stringMatching(/string/) });
  });

  it('reports a union no branch of which applies with its own message', () => {
    const u = z.discriminatedUnion('kind', [z.object({ kind: z.literal('a') }), z.object({ kind: z.literal('b') })]);
    const issues = issuesOf(u, { kind: 'c' });
    expect(issues).toHaveLength(1);
    expect(issues[0]!.path).toEqual(['x', 'kind']);
    expect(issues[0]!.message).toMatch(/./);
  });
});

describe('reconfigureEntry', () => {
  it("an adaptiveBreaker entry's tuning changes in place: the same breaker trips by its new rule", async () => {
    const clock = new TestClock(1_700_000_000_000);
    const configs = new BehaviorSubject<unknown>({ policies: [{ type: 'adaptiveBreaker', tripFailures: 50 }] });
    const p = fromConfig(configs, {}, { clock });
    const events: PolicyEvent[] = [];
    p.events$.subscribe((e) => (e.type === 'configApplied' || e.type === 'configRejected') && events.push(e));
    const breaker = p.pipeline.policies[0] as unknown as { state: string };
    configs.next({ policies: [{ type: 'adaptiveBreaker', tripFailures: 2 }] });
    expect(events).toEqual([{ type: 'configApplied', policy: 'config', version: 2, rebuilt: false }]);
    expect(p.pipeline.policies[0]).toBe(breaker);
    for (let i = 0; i < 2; i++) await p.execute(() => Promise.reject(new Error('down'))).catch(() => undefined);
    expect(breaker.state).toBe('open');
  });
});

describe('buildEntry', () => {
  it("a cache entry's store must be an object with get(): null, a number or a bare object is a ConfigError naming it", () => {
    for (const bad of [null, 5, {}]) {
      expect(() => fromConfig({ policies: [{ type: 'cache', ttlMs: 1_000, store: 's' }] }, { s: bad })).toThrow(/policies\[0\]\.store.*a CacheStore/);
    }
  });

  it("a loadShedder entry builds without cpu (the process's own), and with cpu a number handler", () => {
    expect(fromConfig({ policies: [{ type: 'loadShedder' }] }).pipeline.policies).toHaveLength(1);
    expect(fromConfig({ policies: [{ type: 'loadShedder', cpu: 'load' }] }, { load: 0.5 }).pipeline.policies).toHaveLength(1);
  });

  it("a keyedBreaker entry's metaKey keys a call without that label as '' (one shared breaker)", async () => {
    const p = fromConfig({ policies: [{ type: 'keyedBreaker', metaKey: 'tenant' }] });
    const keyed = p.pipeline.policies[0] as unknown as { registry: { peek(key: string): unknown; size: number } };
    await p.execute(() => 'ok', { meta: { other: 'x' } });
    await p.execute(() => 'ok', { meta: { tenant: 'a' } });
    expect(keyed.registry.size).toBe(2);
    expect(keyed.registry.peek('')).toBeDefined();
    expect(keyed.registry.peek('a')).toBeDefined();
  });
});

describe('reconfigureEntry: an entry is unchanged whatever the order of its keys', () => {
  it("a reload that only reorders a degrade entry's signals (a record, kept in its written order) changes nothing", () => {
    const entry = (signals: Record<string, number>, to = 'f') => ({ policies: [{ type: 'degrade', when: { decisionTree: { qpsHigh: 100, qpsMid: 50 } }, signals, to }] });
    const configs = new BehaviorSubject<unknown>(entry({ cpu: 0.1, qps: 3 }));
    const p = fromConfig(configs, { f: () => 'f', g: () => 'g' });
    const events: PolicyEvent[] = [];
    p.events$.subscribe((e) => (e.type === 'configApplied' || e.type === 'configRejected') && events.push(e));
    const before = p.pipeline.policies[0];
    configs.next(entry({ qps: 3, cpu: 0.1 }));
    expect(events).toEqual([{ type: 'configApplied', policy: 'config', version: 2, rebuilt: false }]);
    expect(p.pipeline.policies[0]).toBe(before);
    // a real change outside the thresholds is still refused
    configs.next(entry({ qps: 3, cpu: 0.1 }, 'g'));
    expect(events.at(-1)).toMatchObject({ type: 'configRejected', reason: 'invalid' });
  });
});

describe('config/entries.ts: every entry builds its policy with its options', () => {
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
    expect(configIssuesOf(() => fromConfig({ policies: [{ type: 'chaos', latency: 'l', enabled: 'e', fault: 'f' }] }, {})).map((i) => i.path)).toEqual([
      'policies[0].latency',
      'policies[0].enabled',
      'policies[0].fault',
    ]);
    expect(configIssuesOf(() => fromConfig({ policies: [{ type: 'chaos', result: 'r' }] }, {})).map((i) => i.path)).toEqual(['policies[0].result']);
  });

  it('keyedBreaker: needs metaKey or keyOf; takes its name, idleMs and defaults', () => {
    expect(configIssuesOf(() => fromConfig({ policies: [{ type: 'keyedBreaker' }] }))).toEqual([{ path: 'policies[0].metaKey', message: 'give metaKey or keyOf' }]);
    expect(configIssuesOf(() => fromConfig({ policies: [{ type: 'keyedBreaker', keyOf: 'k' }] }, {}))).toEqual([{ path: 'policies[0].keyOf', message: 'no handler named "k" was given' }]);
    expect(configIssuesOf(() => fromConfig({ policies: [{ type: 'keyedBreaker', metaKey: 'm', defaults: { handle: 'h' } }] }, {}))).toEqual([
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
    expect(configIssuesOf(() => fromConfig({ policies: [{ type: 'degrade', when: 'f', signals: { cpu: 'n', qps: 3 }, to: 'f' }] }, h))).toEqual([
      { path: 'policies[0].signals.cpu', message: 'handler "n" must be a number, a function or an Observable' },
    ]);
    expect(configIssuesOf(() => fromConfig({ policies: [{ type: 'degrade', when: 'w', to: 't' }] }, {}))).toEqual([
      { path: 'policies[0].when', message: 'no handler named "w" was given' },
      { path: 'policies[0].to', message: 'no handler named "t" was given' },
    ]);
    expect(configIssuesOf(() => fromConfig({ policies: [{ type: 'loadShedder', cpu: 'n' }] }, h))).toEqual([
      { path: 'policies[0].cpu', message: 'handler "n" must be a number, a function or an Observable' },
    ]);
    expect(configIssuesOf(() => fromConfig({ policies: [{ type: 'cache', ttlMs: 1, store: 's', key: 'k', handleResult: 'r' }] }, h))).toEqual([
      { path: 'policies[0].store', message: 'handler "s" must be a CacheStore' },
      { path: 'policies[0].key', message: 'no handler named "k" was given' },
      { path: 'policies[0].handleResult', message: 'no handler named "r" was given' },
    ]);
    expect(configIssuesOf(() => fromConfig({ policies: [{ type: 'idempotent', store: 's', codec: 'n', key: 'k', handleResult: 'r' }] }, h))).toEqual([
      { path: 'policies[0].store', message: 'handler "s" must be an IdempotencyStore' },
      { path: 'policies[0].key', message: 'no handler named "k" was given' },
      { path: 'policies[0].codec', message: 'handler "n" must be a codec' },
      { path: 'policies[0].handleResult', message: 'no handler named "r" was given' },
    ]);
    expect(configIssuesOf(() => fromConfig({ policies: [{ type: 'sreBreaker', handle: 'a', handleResult: 'b' }, { type: 'circuitBreaker', strategy: 'custom', readyToTrip: 'c' }] }, {}))).toEqual([
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

describe('config/entries.ts: what changes in place on reload', () => {
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
