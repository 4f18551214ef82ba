import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { constant, policy, type ExecutionContext } from '../../api/index.js';
import { seededRandom, TestClock } from '../../lib/testing.js';

const START = 1_700_000_000_000;

function mixedOperation(kind: number, clock: { setTimeout(fn: () => void, ms: number): unknown }) {
  return (ctx: ExecutionContext): Promise<string> | string => {
    switch (kind) {
      case 0:
        return 'ok';
      case 1:
        return new Promise((resolve) => clock.setTimeout(() => resolve('slow ok'), 10));
      case 2:
        return Promise.reject(new Error('fail'));
      case 3:
        // hangs, but honours the signal as a good operation should
        return new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true }));
      default:
        return new Promise(() => {}); // hangs and ignores the signal
    }
  };
}

describe('no leaks', () => {
  it('10,000 mixed calls leave no timer and no listener behind (TestClock)', async () => {
    const clock = new TestClock(START);
    const random = seededRandom(2024);
    const chains = [
      policy({ clock, random }).timeout(50).retry({ maxAttempts: 3, backoff: constant(5) }).fallback(() => 'fallback'),
      policy({ clock, random }).retry({ maxAttempts: 2, backoff: constant(5) }).timeout(80),
      // a cooperative timeout waits for an operation that ignores its signal; the outer one bounds it
      policy({ clock, random }).timeout({ ms: 30, mode: 'cooperative' }).retry({ maxAttempts: 2 }).timeout(200),
    ];
    const signals: AbortSignal[] = [];
    const counts = { ok: 0, failed: 0 };
    for (let batch = 0; batch < 100; batch++) {
      const pending: Promise<unknown>[] = [];
      for (let i = 0; i < 100; i++) {
        const kind = Math.floor(random() * 5);
        const chain = chains[Math.floor(random() * chains.length)]!;
        const ac = new AbortController();
        signals.push(ac.signal);
        const useTimeout = random() < 0.3;
        pending.push(
          chain
            .execute(mixedOperation(kind, clock), { signal: ac.signal, ...(useTimeout ? { timeout: 60 } : {}) })
            .then(() => counts.ok++, () => counts.failed++),
        );
        if (random() < 0.2) clock.setTimeout(() => ac.abort(new Error('caller')), Math.floor(random() * 100));
      }
      await clock.advance(400);
      await Promise.all(pending);
    }
    expect(counts.ok + counts.failed).toBe(10_000);
    expect(counts.ok).toBeGreaterThan(0);
    expect(counts.failed).toBeGreaterThan(0);
    expect(clock.pendingTimers).toBe(0);
    for (const s of signals) expect(getEventListeners(s, 'abort')).toHaveLength(0);
  });

  it('a short run on the system clock leaves no active timer', async () => {
    const before = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const p = policy().timeout(5).retry({ maxAttempts: 2, backoff: constant(1) }).fallback(() => 'fb');
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        p.execute(
          (ctx) =>
            i % 3 === 0
              ? 'ok'
              : i % 3 === 1
                ? Promise.reject(new Error('x'))
                : new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true })),
        ),
      ),
    );
    expect(results.filter((r) => r === 'ok')).toHaveLength(67);
    expect(results.filter((r) => r === 'fb')).toHaveLength(133);
    const after = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    expect(after).toBe(before);
  });
});
