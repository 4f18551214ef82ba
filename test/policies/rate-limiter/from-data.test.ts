import { describe, expect, it } from 'vitest';
import { LeakyBucket, SlidingWindow, TokenBucket } from '../../../api/index.js';
import { algorithmFromData } from '../../../policies/rate-limiter/from-data.js';

describe('algorithmFromData', () => {
  it('makes the algorithm each kind names, with the figures given, and a new one each time', () => {
    const t = algorithmFromData({ kind: 'tokenBucket', rate: 4, burst: 2 });
    expect(t).toBeInstanceOf(TokenBucket);
    expect(t).toMatchObject({ rate: 4, burst: 2 });
    expect(algorithmFromData({ kind: 'tokenBucket', rate: 4, burst: 2 })).not.toBe(t);
    expect(algorithmFromData({ kind: 'tokenBucket', rate: 2.5 })).toMatchObject({ burst: 3 }); // the bucket's own default
    const l = algorithmFromData({ kind: 'leakyBucket', rate: 5, capacity: 7 });
    expect(l).toBeInstanceOf(LeakyBucket);
    expect(l).toMatchObject({ rate: 5, capacity: 7 });
    const w = algorithmFromData({ kind: 'slidingWindow', limit: 10, windowMs: 1_000, buckets: 4 });
    expect(w).toBeInstanceOf(SlidingWindow);
    expect(w).toMatchObject({ limit: 10, windowMs: 1_000, buckets: 4 });
  });
});
