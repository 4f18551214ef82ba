import { describe, expect, it } from 'vitest';
import { retry } from '../../api/index.js';
import { judge } from '../../lib/judge.js';

describe('lib/judge.ts', () => {
  it('a predicate that throws counts as a failure', async () => {
    let calls = 0;
    const r = retry({
      maxAttempts: 3,
      backoff: () => 0,
      handle: () => {
        throw new Error('buggy');
      },
    } as never);
    await r
      .execute(() => {
        calls++;
        throw new Error('x');
      })
      .catch(() => undefined);
    expect(calls).toBe(3);
  });
});

describe('judge', () => {
  it("returns the predicate's answer for the value", () => {
    const seen: unknown[] = [];
    const isBig = (n: number) => (seen.push(n), n > 10);
    expect(judge(isBig, 11)).toBe(true);
    expect(judge(isBig, 10)).toBe(false);
    expect(seen).toEqual([11, 10]);
  });

  it('a predicate that throws answers true (a failure), whatever it threw', () => {
    expect(
      judge(() => {
        throw new Error('buggy');
      }, 1),
    ).toBe(true);
    expect(
      judge(() => {
        throw undefined;
      }, 1),
    ).toBe(true);
  });
});
