import { describe, expect, it } from 'vitest';
import type { PolicyEvent } from '../../../lib/events.js';
import { TestClock } from '../../../lib/testing.js';
import { chaos } from '../../../policies/chaos/index.js';
import { collect } from '../../helpers/events.js';

const T0 = 1_700_000_000_000;

function injected(p: { events$: import('rxjs').Observable<PolicyEvent> }): PolicyEvent[] {
  const seen: PolicyEvent[] = [];
  p.events$.subscribe((e) => {
    if (e.type === 'injected') seen.push(e);
  });
  return seen;
}

describe('InjectedEvent', () => {
  it('reports the injected latency and the whole duration; the fault value is thrown as it is', async () => {
    const clock = new TestClock(T0);
    const fault = new Error('injected');
    const c = chaos({ latency: (ctx) => (ctx.key === 'slow' ? 200 : 20), fault, injectionRate: 1, clock, name: 'monkey' });
    const events = collect(c);
    const r = c.execute(() => 1, { key: 'slow' });
    const check = expect(r).rejects.toBe(fault);
    await clock.advance(200);
    await check;
    expect(events).toEqual([
      { type: 'injected', policy: 'monkey', kind: 'latency', delayMs: 200 },
      { type: 'injected', policy: 'monkey', kind: 'fault', delayMs: undefined },
      { type: 'outcome', policy: 'monkey', result: 'failure', durationMs: 200, error: fault },
    ]);
    expect(clock.pendingTimers).toBe(0);
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
