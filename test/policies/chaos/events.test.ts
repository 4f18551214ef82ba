import { describe, expect, it } from 'vitest';
import type { PolicyEvent } from '../../../lib/events.js';
import { TestClock } from '../../../lib/testing.js';
import { chaos } from '../../../policies/chaos/index.js';

const T0 = 1_700_000_000_000;

function injected(p: { events$: import('rxjs').Observable<PolicyEvent> }): PolicyEvent[] {
  const seen: PolicyEvent[] = [];
  p.events$.subscribe((e) => {
    if (e.type === 'injected') seen.push(e);
  });
  return seen;
}

describe('InjectedEvent', () => {
  it('kind latency carries the delay; kind fault follows it on the same call', async () => {
    const clock = new TestClock(T0);
    const fault = new Error('injected');
    const c = chaos({ latency: 30, fault, injectionRate: 1, clock, name: 'monkey' });
    const seen = injected(c);
    const run = c.execute(() => Promise.resolve('real')).catch((e: unknown) => e);
    await clock.advance(30);
    expect(await run).toBe(fault);
    expect(seen).toEqual([
      { type: 'injected', policy: 'monkey', kind: 'latency', delayMs: 30 },
      { type: 'injected', policy: 'monkey', kind: 'fault' },
    ]);
    expect(seen[1]).not.toHaveProperty('delayMs', expect.any(Number));
  });

  it('kind result: the substitute answers and no delay is reported', async () => {
    const c = chaos({ result: () => 'stub', injectionRate: 1, clock: new TestClock(T0) });
    const seen = injected(c);
    expect(await c.execute(() => Promise.resolve('real'))).toBe('stub');
    expect(seen).toEqual([{ type: 'injected', policy: 'chaos', kind: 'result' }]);
  });

  it('a function latency reports what it returned; a call not drawn reports nothing', async () => {
    const clock = new TestClock(T0);
    let draw = 0;
    const c = chaos({ latency: (ctx) => 10 * ctx.attempt + 5, injectionRate: 0.5, random: () => [0.2, 0.7][draw++ % 2]!, clock });
    const seen = injected(c);
    const first = c.execute(() => Promise.resolve(1));
    await clock.advance(15);
    expect(await first).toBe(1);
    expect(await c.execute(() => Promise.resolve(2))).toBe(2);
    expect(seen).toEqual([{ type: 'injected', policy: 'chaos', kind: 'latency', delayMs: 15 }]);
  });
});
