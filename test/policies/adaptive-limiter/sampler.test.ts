import { describe, expect, it } from 'vitest';
import { Sampler } from '../../../policies/adaptive-limiter/sampler.js';

const T0 = 1_000;

describe('Sampler', () => {
  it('closes a window at the first call that ends windowMs after it opened, once it has minSamples', () => {
    const s = new Sampler(100, 1_000, 3, T0);
    expect(s.add(T0 + 10, 10, 1, false)).toBeUndefined();
    expect(s.add(T0 + 20, 10, 2, false)).toBeUndefined();
    // three samples, but only 30 ms old
    expect(s.add(T0 + 30, 10, 1, false)).toBeUndefined();
    const w = s.add(T0 + 100, 30, 4, true);
    expect(w).toMatchObject({ rttMs: 10, maxInFlight: 4, samples: 4, drops: 1 });
  });

  it('waits at least twice the fastest answer, at most maxWindowMs', () => {
    const s = new Sampler(10, 300, 2, T0);
    s.add(T0 + 100, 100, 1, false);
    expect(s.add(T0 + 150, 120, 1, false)).toBeUndefined();
    expect(s.add(T0 + 200, 130, 1, false)).toMatchObject({ rttMs: (100 + 120 + 130) / 3, samples: 3 });
    s.clear(T0 + 200);
    s.add(T0 + 300, 400, 1, false);
    expect(s.add(T0 + 500, 400, 1, false)).toMatchObject({ samples: 2 });
  });

  it('a window of drops only lasts windowMs and has no mean', () => {
    const s = new Sampler(50, 1_000, 2, T0);
    s.add(T0 + 10, 300, 5, true);
    expect(s.add(T0 + 50, 300, 5, true)).toMatchObject({ rttMs: undefined, drops: 2, samples: 2, maxInFlight: 5 });
  });

  it('discards a window still short of minSamples after maxWindowMs, with the call that found it so', () => {
    const s = new Sampler(100, 1_000, 3, T0);
    s.add(T0 + 100, 5, 9, true);
    expect(s.add(T0 + 1_000, 5, 9, true)).toBeUndefined();
    s.add(T0 + 1_050, 7, 1, false);
    s.add(T0 + 1_060, 7, 1, false);
    expect(s.add(T0 + 1_100, 7, 2, false)).toMatchObject({ rttMs: 7, samples: 3, drops: 0, maxInFlight: 2 });
  });
});
