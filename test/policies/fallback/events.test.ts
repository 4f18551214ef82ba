import { describe, expect, it } from 'vitest';
import { TestClock } from '../../../lib/testing.js';
import { fallback, fallbackChain } from '../../../policies/fallback/index.js';
import { policy } from '../../../api/index.js';
import { collect } from '../../helpers/breakers.js';
import { track } from '../../helpers/track.js';
import { own } from '../../helpers/events.js';

const T0 = 1_700_000_000_000;

describe('fallback events', () => {
  it('reports the handler index, the failure and the duration when a handler answers', async () => {
    const clock = new TestClock(T0);
    const f = fallbackChain(
      () => {
        throw new Error('h0');
      },
      () => 'h1',
    );
    const events = collect(f);
    const failure = new Error('down');
    const p = policy({ clock })
      .use(f)
      .execute(() => new Promise((_, reject) => clock.setTimeout(() => reject(failure), 12)));
    const t = track(p, clock);
    await clock.advance(12);
    expect(await t.settled).toMatchObject({ ok: true, value: 'h1' });
    expect(events).toEqual([
      { type: 'fallback', policy: 'fallbackChain', handler: 1, error: failure },
      { type: 'outcome', policy: 'fallbackChain', result: 'fallback', durationMs: 12, error: failure },
    ]);
  });

  it('when every handler fails reports fallbackFailed and a failure outcome carrying the original', async () => {
    const clock = new TestClock(T0);
    const f = fallback(() => Promise.reject(new Error('h')));
    const events = collect(f);
    const original = new Error('original');
    await expect(policy({ clock }).use(f).execute(() => Promise.reject(original))).rejects.toBe(original);
    expect(events).toEqual([
      { type: 'fallbackFailed', policy: 'fallback', error: original, handlerErrors: [new Error('h')] },
      { type: 'outcome', policy: 'fallback', result: 'failure', durationMs: 0, error: original },
    ]);
  });

  it('neither is emitted for a success or an error the fallback does not handle', async () => {
    const f = fallback(() => 'cached', { handle: (e) => e instanceof TypeError });
    const seen = own(f);
    expect(await f.execute(() => Promise.resolve('live'))).toBe('live');
    await expect(f.execute(() => Promise.reject(new RangeError('r')))).rejects.toBeInstanceOf(RangeError);
    expect(seen).toEqual([]);
  });
});
