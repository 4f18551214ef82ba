import { describe, expect, it } from 'vitest';
import type { PolicyEvent } from '../../../lib/events.js';
import { TestClock } from '../../../lib/testing.js';
import { timeout } from '../../../policies/timeout/index.js';
import type { TimeoutEvent } from '../../../policies/timeout/events.js';

const T0 = 1_700_000_000_000;

describe('TimeoutEvent', () => {
  it('is emitted when the deadline passes, with the timeout in ms and the mode, in either mode', async () => {
    const clock = new TestClock(T0);
    const seen: PolicyEvent[] = [];
    for (const mode of ['aggressive', 'cooperative'] as const) {
      const t = timeout({ ms: 40, mode, clock, name: `t-${mode}` });
      t.events$.subscribe((e) => seen.push(e));
      const run = t.execute((ctx) => new Promise((_, no) => ctx.signal.addEventListener('abort', () => no(ctx.signal.reason)))).catch(() => 'timed out');
      await clock.advance(40);
      expect(await run).toBe('timed out');
    }
    const timeouts = seen.filter((e): e is TimeoutEvent => e.type === 'timeout');
    expect(timeouts).toEqual([
      { type: 'timeout', policy: 't-aggressive', timeoutMs: 40, mode: 'aggressive' },
      { type: 'timeout', policy: 't-cooperative', timeoutMs: 40, mode: 'cooperative' },
    ]);
  });

  it('is not emitted for a call that settles before its deadline', async () => {
    const clock = new TestClock(T0);
    const t = timeout({ ms: 40, clock });
    const types: string[] = [];
    t.events$.subscribe((e) => types.push(e.type));
    const run = t.execute(() => new Promise((r) => clock.setTimeout(() => r('ok'), 39)));
    await clock.advance(39);
    expect(await run).toBe('ok');
    await clock.advance(10);
    expect(types).toEqual(['outcome']);
  });
});
