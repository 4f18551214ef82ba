import { BehaviorSubject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkAs } from '../../config/entries.js';
import { fromConfig, type PolicyEvent } from '../../api/index.js';
import { TestClock } from '../../lib/testing.js';

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
    expect(events).toEqual([{ type: 'configApplied', policy: 'config', version: 2 }]);
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
    expect(events).toEqual([{ type: 'configApplied', policy: 'config', version: 2 }]);
    expect(p.pipeline.policies[0]).toBe(before);
    // a real change outside the thresholds is still refused
    configs.next(entry({ qps: 3, cpu: 0.1 }, 'g'));
    expect(events.at(-1)).toMatchObject({ type: 'configRejected', reason: 'invalid' });
  });
});
