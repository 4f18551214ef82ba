import { describe, expect, it } from 'vitest';
import { BrokenCircuitError, circuitBreaker } from '../../api/index.js';
import { TestClock } from '../../lib/testing.js';
import { collect } from '../helpers/breakers.js';

const T0 = 1_700_000_000_000;

describe('permit: from the mutation analysis', () => {
  it('a permit settles once: a failure then anything else counts one failure; the failure error is in the outcome', () => {
    const clock = new TestClock(T0);
    const b = circuitBreaker({ strategy: 'errorCount', threshold: 2, minRequests: 0, clock });
    const events = collect(b);
    const error = new Error('e');
    const p = b.allow();
    p.failure(error);
    p.failure(error);
    p.success();
    p.release();
    expect(b.stats()).toMatchObject({ total: 1, failures: 1 });
    expect(b.state).toBe('closed');
    expect(events).toEqual([{ type: 'outcome', policy: b.name, result: 'failure', durationMs: 0, error }]);
  });

  it('release after success does nothing, and release alone records nothing (reported once, as cancelled)', () => {
    const clock = new TestClock(T0);
    const b = circuitBreaker({ strategy: 'errorCount', threshold: 1, minRequests: 0, clock });
    const events = collect(b);
    const p = b.allow();
    p.success();
    p.release();
    p.failure(new Error('late'));
    const q = b.allow();
    q.release();
    q.release();
    expect(b.stats()).toMatchObject({ total: 1, failures: 0 });
    expect(events).toEqual([
      { type: 'outcome', policy: b.name, result: 'success', durationMs: 0, error: undefined },
      { type: 'outcome', policy: b.name, result: 'cancelled', durationMs: 0, error: undefined },
    ]);
  });

  it('a released half-open probe frees its place once, however often released', async () => {
    const clock = new TestClock(T0);
    const b = circuitBreaker({ strategy: 'errorCount', threshold: 1, minRequests: 0, openMs: 100, probes: 2, clock });
    b.allow().failure(new Error('down'));
    expect(b.state).toBe('open');
    await clock.advance(100);
    const p1 = b.allow();
    const p2 = b.allow();
    expect(b.state).toBe('half-open');
    expect(() => b.allow()).toThrow(BrokenCircuitError);
    p1.release();
    p1.release();
    const p3 = b.allow();
    // two probes in flight again (p2, p3): no room for a third
    expect(() => b.allow()).toThrow(BrokenCircuitError);
    p2.release();
    p3.release();
  });
});
