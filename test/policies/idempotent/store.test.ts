import { describe, expect, it } from 'vitest';
import { isIdempotencyStore, memoryStore } from '../../../api/index.js';

describe('isIdempotencyStore', () => {
  it('needs claim, complete, completeNotStorable and release: a store that cannot record a run without a result is refused', () => {
    const m = { claim: () => {}, complete: () => {}, completeNotStorable: () => {}, release: () => {} };
    expect(isIdempotencyStore(m)).toBe(true);
    expect(isIdempotencyStore(memoryStore())).toBe(true);
    expect(isIdempotencyStore({ claim: m.claim, complete: m.complete, release: m.release })).toBe(false);
    expect(isIdempotencyStore({ ...m, completeNotStorable: 'yes' })).toBe(false);
  });
});
