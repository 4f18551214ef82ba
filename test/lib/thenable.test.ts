import { describe, expect, it } from 'vitest';
import { isThenable } from '../../lib/thenable.js';
import { bulkhead } from '../../api/index.js';

describe('isThenable', () => {
  it('is true for promises and for any object or function with a then method', () => {
    expect(isThenable(Promise.resolve(1))).toBe(true);
    expect(isThenable({ then: () => undefined })).toBe(true);
    const fn = Object.assign(() => 1, { then: () => undefined });
    expect(isThenable(fn)).toBe(true);
  });

  it('is false for plain values, null, undefined and a then that is not a method', () => {
    for (const v of [1, 'then', true, null, undefined, {}, [], () => 1, { then: 1 }, { then: 'x' }, Symbol('s')]) {
      expect(isThenable(v)).toBe(false);
    }
  });

  it('agrees with what await adopts: a function-valued thenable is awaited, not returned', async () => {
    const fn = Object.assign(() => 1, { then: (resolve: (v: number) => void) => resolve(7) });
    // `await` adopts the thenable, so the bulkhead must count it as pending until it settles.
    const b = bulkhead({ limit: 1 });
    await expect(b.execute(() => fn as unknown as number)).resolves.toBe(7);
    expect(b.executing).toBe(0);
  });
});
