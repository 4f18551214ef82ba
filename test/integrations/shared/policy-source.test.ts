import { describe, expect, it } from 'vitest';
import { BulkheadRejectedError } from '../../../lib/errors.js';
import type { OutcomeEvent, PolicyEvent } from '../../../lib/events.js';
import { TestClock } from '../../../lib/testing.js';
import { policySource } from '../../../integrations/shared/policy-source.js';
import { bulkhead } from '../../../policies/bulkhead/index.js';

const T0 = 1_700_000_000_000;

function outcomes(p: { events$: import('rxjs').Observable<PolicyEvent> }): OutcomeEvent[] {
  const seen: OutcomeEvent[] = [];
  p.events$.subscribe((e) => {
    if (e.type === 'outcome') seen.push(e);
  });
  return seen;
}

describe('policySource', () => {
  it('is named after its policy', () => {
    expect(policySource(bulkhead({ limit: 1, name: 'pool' })).name).toBe('pool');
  });

  it('admits through the policy: the call holds its slot until the permit settles', async () => {
    const clock = new TestClock(T0);
    const b = bulkhead({ limit: 1, clock });
    const seen = outcomes(b);
    const source = policySource(b);
    const permit = await source.allow();
    expect(b.executing).toBe(1);
    await expect(source.allow()).rejects.toBeInstanceOf(BulkheadRejectedError);
    await clock.advance(30);
    permit.success();
    await clock.advance(0);
    expect(b.executing).toBe(0);
    expect(seen.map((e) => [e.result, e.durationMs])).toEqual([
      ['rejected', 0],
      ['success', 30],
    ]);
  });

  it('a permit waits in the policy’s queue, and is admitted when a slot frees', async () => {
    const clock = new TestClock(T0);
    const b = bulkhead({ limit: 1, queue: 1, clock });
    const source = policySource(b);
    const first = await source.allow();
    let second: unknown;
    void Promise.resolve(source.allow()).then((p) => (second = p));
    await clock.advance(0);
    expect(second).toBeUndefined();
    first.success();
    await clock.advance(0);
    expect(second).toBeDefined();
  });

  it('failure fails the call with its error (or a generic one); release is the caller’s own cancellation', async () => {
    const clock = new TestClock(T0);
    const b = bulkhead({ limit: 1, clock });
    const seen = outcomes(b);
    const source = policySource(b);
    const boom = new Error('boom');
    (await source.allow()).failure(boom);
    await clock.advance(0);
    (await source.allow()).failure();
    await clock.advance(0);
    (await source.allow()).release();
    await clock.advance(0);
    expect(seen.map((e) => e.result)).toEqual(['failure', 'failure', 'cancelled']);
    expect(seen[0]!.error).toBe(boom);
    expect((seen[1]!.error as Error).message).toBe('call failed');
    expect((seen[2]!.error as Error).message).toBe('released');
    // every slot is free again
    expect(b.executing).toBe(0);
  });
});
