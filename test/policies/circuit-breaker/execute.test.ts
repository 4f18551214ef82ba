import { describe, expect, it } from 'vitest';
import { BrokenCircuitError, circuitBreaker, pipe, policy, sreBreaker, timeout, TimeoutError } from '../../../api/index.js';
import { scriptedRandom, TestClock } from '../../../lib/testing.js';
import { T0 } from '../../helpers/breakers.js';

describe('circuitBreaker.execute', () => {
  it('an enclosing deadline fails a half-open probe at that moment, freeing its slot', async () => {
    const clock = new TestClock(T0);
    const b = circuitBreaker({ strategy: 'consecutiveFailures', threshold: 1, openMs: 1_000, clock });
    await b.execute(() => Promise.reject(new Error('x'))).catch(() => {});
    await clock.advance(1_000);
    const p = pipe(b, timeout({ ms: 100, clock })).execute(() => new Promise(() => {}));
    const settled = expect(p).rejects.toBeInstanceOf(TimeoutError);
    expect(b.state).toBe('half-open');
    await clock.advance(100);
    await settled;
    expect(b.state).toBe('open'); // the probe failed at the deadline, not when (or if) the operation settles
    expect(clock.pendingTimers).toBe(0);
  });

  it('an enclosing deadline is a slow call for slowCallRatio', async () => {
    const clock = new TestClock(T0);
    const b = circuitBreaker({ strategy: 'slowCallRatio', slowCallMs: 1_000, threshold: 1, minRequests: 1, clock });
    const p = b.execute(() => new Promise(() => {}), { timeout: 50 });
    const settled = expect(p).rejects.toBeInstanceOf(TimeoutError);
    await clock.advance(50);
    await settled;
    expect(b.state).toBe('open');
  });

  it("a caller's abort releases a probe slot and records nothing", async () => {
    const clock = new TestClock(T0);
    const b = circuitBreaker({ strategy: 'consecutiveFailures', threshold: 1, openMs: 1_000, clock });
    await b.execute(() => Promise.reject(new Error('x'))).catch(() => {});
    await clock.advance(1_000);
    const ctrl = new AbortController();
    const p = b.execute(() => new Promise(() => {}), { signal: ctrl.signal });
    expect(() => b.allow()).toThrow(BrokenCircuitError); // the slot is taken
    ctrl.abort('bye');
    await expect(p).rejects.toBe('bye');
    expect(b.state).toBe('half-open');
    await expect(b.execute(() => 'ok')).resolves.toBe('ok'); // the slot was given back
    expect(b.state).toBe('closed');
  });

  it("an inner breaker's rejection is neither success nor failure for an outer one", async () => {
    const clock = new TestClock(T0);
    const inner = sreBreaker({ clock, random: scriptedRandom() });
    const outer = circuitBreaker({ strategy: 'errorCount', threshold: 1, minRequests: 1, clock });
    inner.isolate();
    await expect(pipe(inner, outer).execute(() => 1)).rejects.toBeInstanceOf(BrokenCircuitError);
    expect(outer.state).toBe('closed');
    expect(outer.stats().total).toBe(0);
  });

  it('the permit API reports like execute: release() is a cancellation, failure(error) is classified like a throw', async () => {
    const clock = new TestClock(T0);
    const b = circuitBreaker({ strategy: 'consecutiveFailures', threshold: 10, openMs: 1_000, clock });
    const seen: [string, number][] = [];
    b.events$.subscribe((e) => e.type === 'outcome' && seen.push([e.result, e.durationMs]));
    const settle = async (end: (p: ReturnType<typeof b.allow>) => void) => {
      const permit = b.allow();
      await clock.advance(20);
      end(permit);
    };
    await settle((p) => p.success());
    await settle((p) => p.release());
    await settle((p) => p.failure(new Error('down')));
    await settle((p) => p.failure(new TimeoutError('inner')));
    await settle((p) => p.failure());
    expect(seen).toEqual([
      ['success', 20],
      ['cancelled', 20],
      ['failure', 20],
      ['timeout', 20],
      ['failure', 20],
    ]);
  });

  it('a thrown value its handle does not count is still a failure of the call (the breaker records it as a success)', async () => {
    const clock = new TestClock(T0);
    const b = circuitBreaker({ strategy: 'consecutiveFailures', threshold: 1, openMs: 1_000, handle: (e) => !(e instanceof RangeError), clock });
    const results: string[] = [];
    b.events$.subscribe((e) => e.type === 'outcome' && results.push(e.result));
    await expect(b.execute(() => Promise.reject(new RangeError('not found')))).rejects.toBeInstanceOf(RangeError);
    expect(b.state).toBe('closed');
    expect(results).toEqual(['failure']);
  });

  it('the builder injects its clock', async () => {
    const clock = new TestClock(T0);
    const p = policy({ clock }).circuitBreaker({ strategy: 'consecutiveFailures', threshold: 1, openMs: 500 });
    await expect(p.execute(() => Promise.reject(new Error('x')))).rejects.toThrow('x');
    await expect(p.execute(() => 1)).rejects.toBeInstanceOf(BrokenCircuitError);
    await clock.advance(500);
    await expect(p.execute(() => 1)).resolves.toBe(1);
  });
});
