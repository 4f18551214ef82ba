import { EMPTY } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { limitersOf } from '../../../integrations/shared/limiters.js';

const limiter = (name: string, limit: number, inFlight: number) => ({ name, limit, inFlight, events$: EMPTY });

describe('limitersOf', () => {
  it('finds the policies of a pipeline that have a name, a numeric limit and inFlight, in order', () => {
    const a = limiter('a', 10, 2);
    const b = limiter('b', 5, 0);
    const notOne = [{ name: 'retry', events$: EMPTY }, { name: 'x', limit: '10', inFlight: 1, events$: EMPTY }, { limit: 1, inFlight: 0, events$: EMPTY }, undefined];
    const found = limitersOf({ name: 'p', events$: EMPTY, policies: [a, ...notOne, b] } as never);
    expect(found).toEqual([a, b]);
    expect(found[0]).toBe(a);
  });

  it('a policy alone (no policies list) is looked at itself', () => {
    const a = limiter('solo', 3, 1);
    expect(limitersOf(a as never)).toEqual([a]);
    expect(limitersOf({ name: 'plain', events$: EMPTY } as never)).toEqual([]);
  });

  it('reads the figures live: the same object, not a copy', () => {
    const a = limiter('a', 10, 2);
    const [found] = limitersOf(a as never);
    a.inFlight = 7;
    expect(found!.inFlight).toBe(7);
  });
});
