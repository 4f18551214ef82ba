import { describe, expect, it } from 'vitest';
import { retry } from '../../api/index.js';

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
