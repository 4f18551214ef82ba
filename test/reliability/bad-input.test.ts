import { describe, expect, it } from 'vitest';
import { adaptiveLimiter, breakerRegistry, bulkhead, cache, chaos, circuitBreaker, ConfigError, constant, decisionTree, degrade, exponential, fallback, fallbackChain, hedge, idempotent, keyedBreaker, leakyBucket, linear, loadShedder, memoryCacheStore, memoryStore, policy, rateLimiter, retry, slidingWindow, sloBudget, sreBreaker, timeout, TimeoutError, tokenBucket, tokenBudget } from '../../api/index.js';
import { fromConfig } from '../../api/config.js';
import { TestClock } from '../../lib/testing.js';
import { pipelines, type SoakPipeline } from './soak.js';

/** The bad value kinds of quality.md "Bad input", by the rule an option follows. */
const BAD = {
  positive: [-1, 0, Number.NaN, Infinity, -Infinity, '10', null, true],
  nonNegative: [-1, -0.5, Number.NaN, Infinity, '10', null],
  int1: [0, -1, 1.5, Number.NaN, Infinity, '3', null],
  int0: [-1, 1.5, Number.NaN, Infinity, '3', null],
  int2: [1, 0, 1.5, Number.NaN, '3'],
  ratio: [-0.1, 1.1, Number.NaN, Infinity, '0.5', null],
  openRatio: [0, 1, -0.1, 1.1, Number.NaN, '0.5'],
  finite: [Number.NaN, Infinity, -Infinity, '1', null],
  perSecond: [0, -1, Number.NaN, Infinity, '5', null],
  fn: ['x', 1, {}, null],
  bool: ['yes', 1, null],
  name: ['', 1, null],
  clock: [{}, 'now', 1, { now: () => 0 }],
  object: ['x', 1, null],
} as const;

type Kind = keyof typeof BAD;
type Factory = (options: Record<string, unknown>) => unknown;

/** [factory name, factory, valid base options, { option path: bad value kind or a list of bad values }] */
const rows: [string, Factory, Record<string, unknown>, Record<string, Kind | readonly unknown[]>][] = [
  ['timeout', (o) => timeout(o as never), { ms: 10 }, { ms: 'positive', mode: ['fast', 1], name: 'name', clock: 'clock' }],
  ['retry', (o) => retry(o as never), {}, { maxAttempts: 'int1', backoff: ['x', 1, {}], handle: 'fn', handleResult: 'fn', budget: ['x', {}, { onCall() {} }], name: 'name', clock: 'clock', random: 'fn' }],
  ['fallback', (o) => fallback(() => 1, o as never), {}, { handle: 'fn', handleResult: 'fn', name: 'name' }],
  [
    'sreBreaker',
    (o) => sreBreaker(o as never),
    {},
    { windowMs: 'positive', buckets: 'int1', k: 'finite', minK: [0.5, 0, Number.NaN, Infinity, '1'], protection: [-1, Number.NaN, Infinity, '5'], forcePassMs: 'nonNegative', handle: 'fn', handleResult: 'fn', name: 'name', clock: 'clock', random: 'fn', initialState: ['x', 1, {}] },
  ],
  ...(['errorRatio', 'slowCallRatio', 'errorCount', 'consecutiveFailures', 'dynamicThreshold'] as const).map(
    (strategy): [string, Factory, Record<string, unknown>, Record<string, Kind | readonly unknown[]>] => [
      `circuitBreaker ${strategy}`,
      (o) => circuitBreaker(o as never),
      { strategy },
      {
        minRequests: 'int0',
        windowMs: 'positive',
        buckets: 'int1',
        openMs: 'positive',
        probes: 'int1',
        maxHalfOpenMs: 'positive',
        handle: 'fn',
        handleResult: 'fn',
        name: 'name',
        clock: 'clock',
        initialState: ['x', 1, {}],
        ...(strategy === 'errorRatio' || strategy === 'slowCallRatio' ? { threshold: 'ratio' as const } : {}),
        ...(strategy === 'errorCount' || strategy === 'consecutiveFailures' ? { threshold: 'int0' as const } : {}),
        ...(strategy === 'slowCallRatio' ? { slowCallMs: 'nonNegative' as const } : {}),
        ...(strategy === 'dynamicThreshold' ? { baseRps: 'perSecond' as const, weights: BAD.object, 'weights.rps': [-1, Number.NaN, Infinity, '1'], 'weights.probe': [-1, Number.NaN] } : {}),
      },
    ],
  ),
  ['circuitBreaker custom', (o) => circuitBreaker(o as never), { strategy: 'custom', readyToTrip: () => false }, { readyToTrip: 'fn', windowMs: 'positive' }],
  ['breakerRegistry', (o) => breakerRegistry(o as never), {}, { defaults: ['x', 1, null], idleMs: 'positive', name: 'name', clock: 'clock', random: 'fn' }],
  ['keyedBreaker', (o) => keyedBreaker(() => 'k', o as never), {}, { idleMs: 'positive', name: 'name' }],
  ['bulkhead', (o) => bulkhead(o as never), { limit: 2 }, { limit: 'int1', queue: 'int0', reserve: ['x', 1, null], 'reserve.default': [-0.1, 1, Number.NaN, '0'], 'reserve.sheddable': [-0.1, 1, Infinity, '0.5'], partitions: ['x', 1, [0.5]], 'partitions.live': [0, -1, 1.1, Number.NaN, '0.5'], partitionBy: 'name', name: 'name', clock: 'clock' }],
  [
    'adaptiveLimiter',
    (o) => adaptiveLimiter(o as never),
    {},
    { algorithm: ['x', 1, null, {}, { kind: 'bbr' }], initialLimit: 'int1', minLimit: 'int1', maxLimit: 'int1', windowMs: 'positive', maxWindowMs: 'positive', minSamples: 'int1', isOverload: 'fn', reserve: ['x', 1, null], 'reserve.default': [-0.1, 1, Number.NaN, '0'], 'reserve.sheddable': [-0.1, 1, Infinity, '0.5'], partitions: ['x', 1, [0.5]], 'partitions.live': [0, -1, 1.1, Number.NaN, '0.5'], partitionBy: 'name', name: 'name', clock: 'clock' },
  ],
  ['adaptiveLimiter gradient', (o) => adaptiveLimiter(o as never), { algorithm: { kind: 'gradient' } }, { 'algorithm.tolerance': [0.5, Number.NaN, Infinity, '2'], 'algorithm.smoothing': [0, 1.5, '0.2'], 'algorithm.queueSize': [-1, Number.NaN, '4'], 'algorithm.backoffRatio': [0.4, 1, '0.9'], 'algorithm.baselineWindows': 'int1' }],
  ['adaptiveLimiter aimd', (o) => adaptiveLimiter(o as never), { algorithm: { kind: 'aimd' } }, { 'algorithm.backoffRatio': [0.4, 1, '0.9'], 'algorithm.increase': [0, -1, Number.NaN, '1'], 'algorithm.slowMs': 'positive' }],
  ['adaptiveLimiter vegas', (o) => adaptiveLimiter(o as never), { algorithm: { kind: 'vegas' } }, { 'algorithm.alpha': [-1, Number.NaN, '3'], 'algorithm.beta': [-1, Number.NaN, '6', 2] }],
  ['rateLimiter', (o) => rateLimiter(o as never), { algorithm: { kind: 'tokenBucket', rate: 10 } }, { algorithm: ['x', 1, null, {}, { kind: 'warp' }], reserve: ['x', 1, null], 'reserve.default': [-0.1, 1, Number.NaN, '0'], 'reserve.sheddable': [-0.1, 1, Infinity, '0.5'], name: 'name', clock: 'clock' }],
  ['rateLimiter tokenBucket data', (o) => rateLimiter(o as never), { algorithm: { kind: 'tokenBucket', rate: 10 } }, { 'algorithm.rate': 'perSecond', 'algorithm.burst': 'int1' }],
  ['rateLimiter leakyBucket data', (o) => rateLimiter(o as never), { algorithm: { kind: 'leakyBucket', rate: 10 } }, { 'algorithm.rate': 'perSecond', 'algorithm.capacity': 'int0' }],
  ['rateLimiter slidingWindow data', (o) => rateLimiter(o as never), { algorithm: { kind: 'slidingWindow', limit: 10, windowMs: 1_000 } }, { 'algorithm.limit': 'int1', 'algorithm.windowMs': 'positive' }],
  ['tokenBucket', (o) => tokenBucket(o as never), { rate: 10 }, { rate: 'perSecond', burst: 'int1' }],
  ['leakyBucket', (o) => leakyBucket(o as never), { rate: 10 }, { rate: 'perSecond', capacity: 'int0' }],
  ['slidingWindow', (o) => slidingWindow(o as never), { limit: 10, windowMs: 1_000 }, { limit: 'int1', windowMs: 'positive' }],
  [
    'idempotent',
    (o) => idempotent(o as never),
    {},
    { store: ['x', {}, 1], key: 'fn', ttlMs: 'positive', leaseMs: 'positive', renewLease: 'bool', onInProgress: ['maybe', 1], pollMs: 'positive', codec: ['x', {}], storeTimeoutMs: 'positive', failOpen: 'bool', handleResult: 'fn', name: 'name', clock: 'clock' },
  ],
  ['memoryStore', (o) => memoryStore(o as never), {}, { clock: 'clock' }],
  ['hedge', (o) => hedge(o as never), {}, { delayMs: [-1, Number.NaN, '5', null], delay: 'fn', maxHedged: 'int1', handle: 'fn', handleResult: 'fn', name: 'name', clock: 'clock' }],
  ['chaos', (o) => chaos(o as never), { fault: new Error('x'), injectionRate: 0.5 }, { injectionRate: 'ratio', enabled: ['yes', 1, null], latency: [-1, Number.NaN, Infinity, 'x'], random: 'fn', name: 'name', clock: 'clock' }],
  ['cache', (o) => cache(o as never), { ttlMs: 100 }, { ttlMs: 'positive', staleWhileRevalidateMs: 'nonNegative', retainMs: [0, -1, Number.NaN, 'x', 50], store: ['x', {}, 1], key: 'fn', handleResult: 'fn', name: 'name', clock: 'clock' }],
  ['memoryCacheStore', (o) => memoryCacheStore(o as never), {}, { maxEntries: 'int1', codec: ['x', {}], clock: 'clock' }],
  ['degrade', (o) => degrade(o as never), { when: () => false, to: () => 1 }, { when: ['x', 1, null], to: ['x', 1, null], signals: ['x', 1], 'signals.cpu': ['x', null, {}], rateWindowMs: 'positive', name: 'name', clock: 'clock' }],
  ['loadShedder', (o) => loadShedder(o as never), {}, { cpuThreshold: 'openRatio', cpu: ['x', null, {}], windowMs: 'positive', buckets: 'int2', coolOffMs: 'positive', reserve: ['x', 1, null], 'reserve.default': [-0.1, 1, Number.NaN, '0'], 'reserve.sheddable': [-0.1, 1, Infinity, '0.5'], name: 'name', clock: 'clock' }],
  ['decisionTree', (o) => decisionTree(o as never), {}, { qpsHigh: [-1, Number.NaN, Infinity, 'x'], qpsMid: [-1, Number.NaN, 'x'], cpuHigh: [-0.1, 1.1, Number.NaN], cpuCritical: [-0.1, 1.1, Number.NaN], healthyMin: [-0.1, 1.1, Number.NaN] }],
  ['tokenBudget', (o) => tokenBudget(o as never), {}, { ratio: 'ratio', minPerSecond: 'nonNegative', windowMs: 'positive' }],
  ['sloBudget', (o) => sloBudget(o as never), {}, { sloWindowMs: 'positive', fraction: 'ratio', maxRetries: 'int0', latencyWindowMs: 'positive' }],
  ['exponential', (o) => exponential(o as never), {}, { initial: 'positive', multiplier: [0.5, 0, Number.NaN, Infinity, '2'], max: 'positive', jitter: ['wild', 1] }],
];

/** Sets `path` (dotted) to `value` in a copy of `base`. */
function withValue(base: Record<string, unknown>, path: string, value: unknown): Record<string, unknown> {
  const [head, ...rest] = path.split('.');
  if (rest.length === 0) return { ...base, [head!]: value };
  const inner = (base[head!] ?? {}) as Record<string, unknown>;
  return { ...base, [head!]: withValue(inner, rest.join('.'), value) };
}

/** True when an issue names `path` or something inside it (`initialState` → `initialState.kind`). */
function names(issues: { path: string }[], path: string): boolean {
  return issues.some((i) => i.path === path || i.path.startsWith(`${path}.`) || i.path.startsWith(`${path}[`));
}

function issuesOf(build: () => unknown): { path: string; message: string }[] {
  try {
    build();
  } catch (e) {
    if (e instanceof ConfigError) return e.issues as { path: string; message: string }[];
    throw e;
  }
  return [];
}

const cases = rows.flatMap(([factory, make, base, options]) => [
  ...Object.entries(options).flatMap(([path, kind]) =>
    (typeof kind === 'string' ? BAD[kind as Kind] : kind).map((value) => ({ factory, make, base, path, value })),
  ),
  { factory, make, base, path: 'bogus', value: 1 },
]);

describe('bad input: every option of every factory', () => {
  it.each(rows.map(([f, make, base]) => [f, make, base] as const))('%s accepts its valid base options', (_, make, base) => {
    expect(issuesOf(() => make(base))).toEqual([]);
  });

  it.each(cases.map((c) => [c.factory, c.path, c.value, c] as const))('%s: %s = %s is a ConfigError at that path', (_, path, __, c) => {
    const issues = issuesOf(() => c.make(withValue(c.base, path, c.value)));
    expect(issues.length, 'no ConfigError').toBeGreaterThan(0);
    expect(names(issues, path), JSON.stringify(issues)).toBe(true);
    for (const i of issues) expect(i.message).toMatch(/\w/);
  });

  it.each([
    ['sreBreaker k < minK', () => sreBreaker({ k: 1.1, minK: 1.5 }), 'k'],
    ['sreBreaker buckets not dividing windowMs', () => sreBreaker({ windowMs: 1_000, buckets: 3 }), 'buckets'],
    ['circuitBreaker unknown strategy', () => circuitBreaker({ strategy: 'magic' } as never), 'strategy'],
    ['circuitBreaker no strategy', () => circuitBreaker({} as never), 'strategy'],
    ['circuitBreaker buckets not dividing windowMs', () => circuitBreaker({ strategy: 'errorRatio', windowMs: 1_000, buckets: 3 }), 'buckets'],
    ['circuitBreaker zero buckets', () => circuitBreaker({ strategy: 'errorRatio', buckets: 0 }), 'buckets'],
    ['breakerRegistry bad defaults', () => breakerRegistry({ defaults: { k: -1 } as never }), 'defaults.k'],
    ['hedge delayMs and delay', () => hedge({ delayMs: 1, delay: () => 1 }), 'delay'],
    ['chaos nothing to inject', () => chaos({ injectionRate: 0.5 } as never), 'fault'],
    ['chaos fault and result', () => chaos({ fault: 'x', result: () => 1, injectionRate: 0.5 } as never), 'result'],
    ['cache retainMs < ttl + swr', () => cache({ ttlMs: 100, staleWhileRevalidateMs: 50, retainMs: 120 }), 'retainMs'],
    ['cache no ttlMs', () => cache({} as never), 'ttlMs'],
    ['bulkhead no limit', () => bulkhead({} as never), 'limit'],
    ['rateLimiter no algorithm', () => rateLimiter({} as never), 'algorithm'],
    ['exponential max < initial', () => exponential({ initial: 500, max: 100 }), 'max'],
    ['decisionTree qpsHigh < qpsMid', () => decisionTree({ qpsHigh: 10, qpsMid: 20 }), 'qpsHigh'],
    ['timeout as a number', () => timeout(-5), 'ms'],
  ])('%s', (_, build, path) => {
    expect(issuesOf(build).map((i) => i.path)).toContain(path);
  });

  it.each([
    ['constant(-1)', () => constant(-1), 'constant', ''],
    ['constant(NaN)', () => constant(Number.NaN), 'constant', ''],
    ['linear(10, -1)', () => linear(10, -1), 'linear', 'step'],
    ['linear(Infinity, 1)', () => linear(Infinity, 1), 'linear', 'ms'],
    ['fallback("x")', () => fallback('x' as never), 'fallback', '[0]'],
    ['fallbackChain()', () => fallbackChain(), 'fallbackChain', ''],
    ['fallbackChain(1)', () => fallbackChain(1 as never), 'fallbackChain', '[0]'],
  ])('%s is a ConfigError of %s at path "%s"', (_, build, factory, path) => {
    expect(build).toThrow(ConfigError);
    let error: ConfigError | undefined;
    try {
      build();
    } catch (e) {
      error = e as ConfigError;
    }
    expect(error).toMatchObject({ code: 'INVALID_CONFIG', policy: factory });
    expect(error!.issues.map((i) => i.path)).toEqual([path]);
    expect(error!.message).toContain(error!.issues[0]!.message);
  });
});

describe('bad input: fromConfig', () => {
  const handlers = { guest: () => 'guest', isRetryable: () => true, notFn: 'x' as never };
  it.each([
    [{ policies: 'x' }, 'policies'],
    [{ policies: [{ type: 'warp' }] }, 'policies[0].type'],
    [{ policies: [{ ms: 5 }] }, 'policies[0].type'],
    [{ policies: [{ type: 'timeout', ms: -1 }] }, 'policies[0].ms'],
    [{ policies: [{ type: 'timeout', ms: 'NaN' }] }, 'policies[0].ms'],
    [{ policies: [{ type: 'timeout', ms: 5, extra: true }] }, 'policies[0].extra'],
    [{ policies: [{ type: 'retry', maxAttempts: 0 }] }, 'policies[0].maxAttempts'],
    [{ policies: [{ type: 'retry', backoff: { kind: 'exponential', jitter: 'wild' } }] }, 'policies[0].backoff.jitter'],
    [{ policies: [{ type: 'retry', backoff: { kind: 'bogus' } }] }, 'policies[0].backoff.kind'],
    [{ policies: [{ type: 'retry', budget: { kind: 'token', ratio: 2 } }] }, 'policies[0].budget.ratio'],
    [{ policies: [{ type: 'retry', handle: 'nope' }] }, 'policies[0].handle'],
    [{ policies: [{ type: 'fallback', handler: 'nope' }] }, 'policies[0].handler'],
    [{ policies: [{ type: 'fallback' }] }, 'policies[0].handler'],
    [{ policies: [{ type: 'fallbackChain', handlers: ['guest', 'nope'] }] }, 'policies[0].handlers[1]'],
    [{ policies: [{ type: 'fallbackChain', handlers: ['notFn'] }] }, 'policies[0].handlers[0]'],
    [{ policies: [{ type: 'sreBreaker', k: 1, minK: 1.1 }] }, 'policies[0].k'],
    [{ policies: [{ type: 'sreBreaker', buckets: 0 }] }, 'policies[0].buckets'],
    [{ policies: [{ type: 'sreBreaker', windowMs: 0 }] }, 'policies[0].windowMs'],
    [{ policies: [{ type: 'circuitBreaker', strategy: 'magic' }] }, 'policies[0].strategy'],
    [{ policies: [{ type: 'circuitBreaker', strategy: 'errorRatio', threshold: 1.5 }] }, 'policies[0].threshold'],
    [{ policies: [{ type: 'circuitBreaker', strategy: 'errorRatio', openMs: 0 }] }, 'policies[0].openMs'],
    [{ policies: [{ type: 'hedge', maxHedged: 0 }] }, 'policies[0].maxHedged'],
    [{ policies: [{ type: 'chaos', fault: 'guest', injectionRate: 2 }] }, 'policies[0].injectionRate'],
    [{ policies: [{ type: 'cache', ttlMs: 0 }] }, 'policies[0].ttlMs'],
    [{ policies: [{ type: 'loadShedder', cpuThreshold: 1 }] }, 'policies[0].cpuThreshold'],
    [{ policies: [{ type: 'loadShedder', cpu: 'nope' }] }, 'policies[0].cpu'],
    [{ policies: [{ type: 'timeout', ms: 5 }, { type: 'retry', maxAttempts: 1.5 }] }, 'policies[1].maxAttempts'],
  ])('%j → ConfigError at %s', (config, path) => {
    const issues = issuesOf(() => fromConfig(config as never, handlers));
    expect(issues.map((i) => i.path)).toContain(path);
  });
});

describe('bad operations through every policy', () => {
  /**
   * Operations that misbehave in each way quality.md lists, and what they amount to: a value (`ok`), a thrown
   * value (`fail`, what every policy must pass on unchanged), or nothing ever (`hang`).
   */
  const ops: [string, () => unknown, { ok: unknown } | { fail: unknown } | 'hang'][] = [
    ['throws a string', () => Promise.reject('a string'), { fail: 'a string' }],
    ['throws undefined', () => Promise.reject(undefined), { fail: undefined }],
    ['throws null synchronously', () => { throw null; }, { fail: null }],
    ['throws an Error synchronously', () => { throw new Error('sync'); }, { fail: new Error('sync') }],
    ['throws a number synchronously', () => { throw 42; }, { fail: 42 }],
    ['returns a plain value', () => 'plain', { ok: 'plain' }],
    ['returns undefined', () => undefined, { ok: undefined }],
    ['never settles', () => new Promise(() => {}), 'hang'],
    ['a thenable that resolves twice', () => ({ then: (ok: (v: unknown) => void) => (ok('t1'), ok('t2')) }), { ok: 't1' }],
    ['a thenable that resolves then rejects', () => ({ then: (ok: (v: unknown) => void, no: (e: unknown) => void) => (ok('t'), no(new Error('late'))) }), { ok: 't' }],
    ['a thenable that rejects then resolves', () => ({ then: (ok: (v: unknown) => void, no: (e: unknown) => void) => (no('first'), ok('late')) }), { fail: 'first' }],
    ['a thenable whose then throws', () => ({ then: () => { throw new Error('then threw'); } }), { fail: new Error('then threw') }],
    ['a thenable that never calls back', () => ({ then: () => {} }), 'hang'],
  ];

  type Answer = { value: unknown } | { error: unknown };

  /**
   * What a pipeline answers for an operation: its value; for a failure, the pipeline's fallback value or the
   * thrown value itself, unchanged; for a hang, the value its fallback gives for its own timeout, or a TimeoutError.
   */
  function expectAnswer(answer: Answer, expected: (typeof ops)[number][2], p: SoakPipeline, deadlineMs: number): void {
    const where = `${p.label} answered ${JSON.stringify(answer, (_, v: unknown) => (v instanceof Error ? `${v.name}: ${v.message}` : v))}`;
    if (expected !== 'hang' && 'ok' in expected) return expect(answer, where).toStrictEqual({ value: expected.ok });
    if (expected !== 'hang') return expect(answer, where).toStrictEqual(p.onFailure !== undefined ? { value: p.onFailure } : { error: expected.fail });
    // its own timeout, earlier than the caller's deadline, is answered by its fallback
    if (p.onTimeout !== undefined && p.ownTimeoutMs! < deadlineMs) return expect(answer, where).toStrictEqual({ value: p.onTimeout });
    // the caller's deadline reaches every policy inside it: a fallback there answers it, unless an aggressive
    // timeout outside that fallback ends the call first (at the same instant either may win)
    const answers = p.onTimeout ?? p.onFailure;
    if ('value' in answer && answers !== undefined) return expect(answer, where).toStrictEqual({ value: answers });
    expect('error' in answer && answer.error, where).toBeInstanceOf(TimeoutError);
    expect((answer as { error: TimeoutError }).error.code, where).toBe('TIMEOUT');
  }

  it.each(ops)('%s: every pipeline answers as it should, by the deadline at the latest, with nothing left behind', async (_, op, expected) => {
    const clock = new TestClock(1_700_000_000_000);
    // 0.5: no chaos injected, nothing degraded, no load shed, so each pipeline answers for the operation alone
    const random = () => 0.5;
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => unhandled.push(e);
    process.on('unhandledRejection', onUnhandled);
    try {
      for (const p of pipelines(clock, random)) {
        const start = clock.now();
        let settledAt = Number.NaN;
        let answer: Answer | undefined;
        const run = p.policy
          .execute(op as never, { timeout: 100, key: 'k' })
          .then(
            (value) => void (answer = { value }),
            (error: unknown) => void (answer = { error }),
          )
          .finally(() => (settledAt = clock.now()));
        await clock.advance(100);
        await run;
        expect(settledAt, p.label).toBeLessThanOrEqual(start + 100);
        expectAnswer(answer!, expected, p, 100);
        await clock.runAll();
        expect(clock.pendingTimers, p.label).toBe(0);
        await clock.advance(10_000);
      }
      await new Promise((r) => setImmediate(r));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it.each(ops.filter(([, , e]) => e === 'hang'))('%s: with no deadline of the caller, every pipeline ends it by its own bounds', async (_, op, expected) => {
    const clock = new TestClock(1_700_000_000_000);
    for (const p of pipelines(clock, () => 0.5)) {
      const start = clock.now();
      let answer: Answer | undefined;
      let settledAt = Number.NaN;
      void p.policy.execute(op as never, { key: 'k' }).then(
        (value) => void ((answer = { value }), (settledAt = clock.now())),
        (error: unknown) => void ((answer = { error }), (settledAt = clock.now())),
      );
      await clock.advance(1_000);
      expect(answer, `${p.label} still pending`).toBeDefined();
      expectAnswer(answer!, expected, p, Infinity);
      if (p.ownTimeoutMs !== undefined) expect(settledAt - start, p.label).toBe(p.ownTimeoutMs);
      await clock.runAll();
      expect(clock.pendingTimers, p.label).toBe(0);
      await clock.advance(10_000);
    }
  });

  it.each(ops.filter(([, , e]) => e !== 'hang'))('%s: a bare retry → fallback answers as the operation said', async (_, op, expected) => {
    const clock = new TestClock(1_700_000_000_000);
    const seen: unknown[] = [];
    const p = policy({ clock }).retry({ maxAttempts: 2, backoff: constant(1) }).fallback((error: unknown) => (seen.push(error), 'fallback'));
    const run = p.execute(op as never);
    await clock.runAll();
    const r = await run;
    if (expected !== 'hang' && 'fail' in expected) {
      expect(r).toBe('fallback');
      expect(seen).toStrictEqual([expected.fail]);
    } else expect(r).toStrictEqual((expected as { ok: unknown }).ok);
  });
});
