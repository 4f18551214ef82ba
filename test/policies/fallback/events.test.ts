import { describe, expect, it } from 'vitest';
import type { PolicyEvent } from '../../../lib/events.js';
import { TestClock } from '../../../lib/testing.js';
import { fallback, fallbackChain } from '../../../policies/fallback/index.js';

const T0 = 1_700_000_000_000;

function own(p: { events$: import('rxjs').Observable<PolicyEvent> }): PolicyEvent[] {
  const seen: PolicyEvent[] = [];
  p.events$.subscribe((e) => {
    if (e.type !== 'outcome') seen.push(e);
  });
  return seen;
}

describe('fallback events', () => {
  it('fallback: the index of the handler that answered and the error it answered', async () => {
    const clock = new TestClock(T0);
    const boom = new Error('boom');
    const single = fallback(() => 'cached', { clock, name: 'f' });
    const a = own(single);
    expect(await single.execute(() => Promise.reject(boom))).toBe('cached');
    expect(a).toEqual([{ type: 'fallback', policy: 'f', handler: 0, error: boom }]);

    const chain = fallbackChain(
      () => {
        throw new Error('first');
      },
      () => 'second',
    );
    const b = own(chain);
    expect(await chain.execute(() => Promise.reject(boom))).toBe('second');
    expect(b).toEqual([{ type: 'fallback', policy: 'fallbackChain', handler: 1, error: boom }]);
  });

  it('fallbackFailed: the error being answered and what each handler threw, in order; the original error is rethrown', async () => {
    const boom = new Error('boom');
    const e1 = new Error('h1');
    const e2 = new Error('h2');
    const chain = fallbackChain(
      () => Promise.reject(e1),
      () => {
        throw e2;
      },
    );
    const seen = own(chain);
    await expect(chain.execute(() => Promise.reject(boom))).rejects.toBe(boom);
    expect(seen).toEqual([{ type: 'fallbackFailed', policy: 'fallbackChain', error: boom, handlerErrors: [e1, e2] }]);
  });

  it('neither is emitted for a success or an error the fallback does not handle', async () => {
    const f = fallback(() => 'cached', { handle: (e) => e instanceof TypeError });
    const seen = own(f);
    expect(await f.execute(() => Promise.resolve('live'))).toBe('live');
    await expect(f.execute(() => Promise.reject(new RangeError('r')))).rejects.toBeInstanceOf(RangeError);
    expect(seen).toEqual([]);
  });
});
