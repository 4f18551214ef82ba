import { describe, expect, it } from 'vitest';
import { BrokenCircuitError, type PolicyEvent } from '../../../api/index.js';
import { TestClock } from '../../../lib/testing.js';

const T0 = 1_700_000_000_000;

function collect(p: { events$: import('rxjs').Observable<PolicyEvent> }): PolicyEvent[] {
  const out: PolicyEvent[] = [];
  p.events$.subscribe((e) => out.push(e));
  return out;
}

describe('breakers: from the survivors', () => {
  it('sreBreaker streaks from a single failing bucket; reset() empties the window back to head -1', async () => {
    const { sreBreaker } = await import('../../../api/index.js');
    let t = T0;
    const clock = { now: () => t, setTimeout: () => 0, clearTimeout: () => {} };
    const b = sreBreaker({ clock, windowMs: 1_000, buckets: 10 });
    b.allow().failure();
    b.allow().failure();
    expect(b.stats()).toEqual({ accepts: 0, total: 2, failingBuckets: 1, workingBuckets: 0 });
    t += 100;
    b.allow().success();
    expect(b.stats()).toMatchObject({ failingBuckets: 0, workingBuckets: 1 });
    b.reset();
    expect(b.snapshot().window).toMatchObject({ head: -1, sums: [0, 0, 0] });
  });

  it('reconfigure replaces handle (setJudges)', async () => {
    const { circuitBreaker } = await import('../../../api/index.js');
    const b = circuitBreaker({ strategy: 'consecutiveFailures', threshold: 1, clock: new TestClock(T0) });
    b.reconfigure({ strategy: 'consecutiveFailures', threshold: 1, handle: (e: unknown) => !(e instanceof TypeError) } as never);
    await expect(b.execute(() => Promise.reject(new TypeError('ignored')))).rejects.toBeInstanceOf(TypeError);
    expect(b.state).toBe('closed');
    await expect(b.execute(() => Promise.reject(new Error('counted')))).rejects.toThrow('counted');
    expect(b.state).toBe('open');
  });

  it('a stale isolation handle (from before reset) does not end a newer isolation', async () => {
    const { sreBreaker, circuitBreaker } = await import('../../../api/index.js');
    for (const b of [sreBreaker({ clock: new TestClock(T0) }), circuitBreaker({ strategy: 'errorRatio', clock: new TestClock(T0) })]) {
      const h1 = b.isolate();
      b.reset();
      b.isolate();
      h1.dispose();
      expect(() => b.allow()).toThrow(BrokenCircuitError);
      b.reset();
      h1.dispose();
      b.allow().success();
    }
  });

  it('through execute: a failure counts, an inner shed rejection is reported as rejected and counts nothing', async () => {
    const { circuitBreaker } = await import('../../../api/index.js');
    const b = circuitBreaker({ strategy: 'consecutiveFailures', threshold: 2, clock: new TestClock(T0) });
    const events = collect(b);
    await expect(b.execute(() => Promise.reject(new BrokenCircuitError('inner')))).rejects.toBeInstanceOf(BrokenCircuitError);
    expect(events.at(-1)).toMatchObject({ type: 'outcome', result: 'rejected' });
    await expect(b.execute(() => Promise.reject(new Error('x')))).rejects.toThrow('x');
    expect(b.state).toBe('closed');
    expect(events.at(-1)).toMatchObject({ type: 'outcome', result: 'failure' });
    await expect(b.execute(() => Promise.reject(new Error('y')))).rejects.toThrow('y');
    expect(b.state).toBe('open');
  });
});
