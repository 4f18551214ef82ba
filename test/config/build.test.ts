import { describe, expect, it } from 'vitest';
import { buildEntry, reconfigureEntry } from '../../config/build.js';
import type { EntryConfig } from '../../config/entries.js';
import { Resolver } from '../../config/resolve.js';
import { TestClock } from '../../lib/testing.js';
import { AdaptiveBreakerPolicy } from '../../policies/adaptive-breaker/adaptive-breaker.js';
import { CircuitBreakerPolicy } from '../../policies/circuit-breaker/circuit-breaker.js';
import { FallbackPolicy } from '../../policies/fallback/fallback.js';
import { RetryPolicy } from '../../policies/retry/retry.js';
import { TimeoutPolicy } from '../../policies/timeout/timeout.js';
import { memoryCacheStore } from '../../policies/cache/index.js';

const entry = (e: object) => e as EntryConfig;

describe('buildEntry', () => {
  it('builds the policy an entry names, on the resolver clock, with its name', async () => {
    const clock = new TestClock(0);
    const r = new Resolver({}, { clock });
    const t = buildEntry(entry({ type: 'timeout', ms: 50, name: 'edge' }), r, 'policies[0]');
    expect(t).toBeInstanceOf(TimeoutPolicy);
    expect(t.name).toBe('edge');
    const call = t.execute(() => new Promise(() => undefined));
    const settled = expect(call).rejects.toMatchObject({ name: 'TimeoutError' });
    await clock.advance(50);
    await settled;
    expect(r.issues).toEqual([]);
  });

  it('resolves handler names through the resolver', async () => {
    const r = new Resolver({ guest: () => 'guest' }, {});
    const f = buildEntry(entry({ type: 'fallback', handler: 'guest' }), r, 'policies[2]');
    expect(f).toBeInstanceOf(FallbackPolicy);
    await expect(f.execute(() => Promise.reject(new Error('down')))).resolves.toBe('guest');
  });

  it('records a missing handler at the entry path instead of throwing', () => {
    const r = new Resolver({}, {});
    buildEntry(entry({ type: 'fallback', handler: 'nope' }), r, 'policies[2]');
    expect(r.issues).toEqual([{ path: 'policies[2].handler', message: 'no handler named "nope" was given' }]);
  });

  it('turns backoff and budget data into the objects retry takes', () => {
    const r = new Resolver({}, {});
    const p = buildEntry(entry({ type: 'retry', maxAttempts: 4, backoff: { kind: 'constant', ms: 10 }, budget: { kind: 'token', ratio: 0.2 } }), r, 'p');
    expect(p).toBeInstanceOf(RetryPolicy);
    expect((p as RetryPolicy).maxAttempts).toBe(4);
  });

  it('builds a circuit breaker from its data form, the trip rule included', () => {
    const r = new Resolver({ slow: () => true }, {});
    const p = buildEntry(entry({ type: 'circuitBreaker', strategy: 'errorCount', threshold: 3, handle: 'slow' }), r, 'p');
    expect(p).toBeInstanceOf(CircuitBreakerPolicy);
    expect(r.issues).toEqual([]);
  });
});

describe('reconfigureEntry', () => {
  it('leaves an unchanged entry alone and changes a timeout in place', async () => {
    const clock = new TestClock(0);
    const r = new Resolver({}, { clock });
    const before = entry({ type: 'timeout', ms: 50 });
    const t = buildEntry(before, r, 'p') as TimeoutPolicy;
    expect(reconfigureEntry(t, before, r, 'p', before)).toBeUndefined();
    expect(reconfigureEntry(t, entry({ type: 'timeout', ms: 10 }), r, 'p', before)).toBeUndefined();
    const call = t.execute(() => new Promise(() => undefined));
    const settled = expect(call).rejects.toMatchObject({ name: 'TimeoutError' });
    await clock.advance(10);
    await settled;
  });

  it('refuses a change it cannot make in place, or a policy of another type, saying why', () => {
    const r = new Resolver({ a: () => 1, b: () => 2 }, {});
    const before = entry({ type: 'fallback', handler: 'a', name: 'f' });
    const f = buildEntry(before, r, 'p');
    // the handler changes in place; the name cannot
    expect(reconfigureEntry(f, entry({ type: 'fallback', handler: 'b', name: 'f' }), r, 'p', before)).toBeUndefined();
    expect(reconfigureEntry(f, entry({ type: 'fallback', handler: 'a', name: 'g' }), r, 'p', before)).toBe('its name is what it is known by');
    const breaker = buildEntry(entry({ type: 'adaptiveBreaker' }), r, 'p');
    expect(breaker).toBeInstanceOf(AdaptiveBreakerPolicy);
    expect(reconfigureEntry(breaker, entry({ type: 'timeout', ms: 5 }), r, 'p', entry({ type: 'timeout', ms: 6 }))).toBe('it was not built from an entry of this type');
    const c = buildEntry(entry({ type: 'cache', ttlMs: 10, store: 'one' }), new Resolver({ one: memoryCacheStore(), two: memoryCacheStore() }, {}), 'p');
    expect(reconfigureEntry(c, entry({ type: 'cache', ttlMs: 10, store: 'two' }), r, 'p', entry({ type: 'cache', ttlMs: 10, store: 'one' }))).toBe('its store holds the values');
  });
});
