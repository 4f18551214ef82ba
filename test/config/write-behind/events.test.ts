import { describe, expect, it } from 'vitest';
import { writeBehind } from '../../../config/write-behind/write-behind.js';
import type { PolicyEvent } from '../../../lib/events.js';
import { seededRandom, TestClock } from '../../../lib/testing.js';

describe('write-behind events', () => {
  it('writeQueued names the write and its key; replayed names the same write once it is delivered', async () => {
    const clock = new TestClock(1_000);
    let up = false;
    const w = writeBehind({
      deliver: () => (up ? undefined : Promise.reject(new Error('down'))),
      keyOf: (p: { to: string }) => p.to,
      replayIntervalMs: 100,
      name: 'mail',
      clock,
      random: seededRandom(3),
    });
    const events: PolicyEvent[] = [];
    w.events$.subscribe((e) => events.push(e));
    const queued = await w.write({ to: 'ann' });
    expect(queued.status).toBe('queued');
    expect(events.filter((e) => e.type === 'writeQueued')).toEqual([{ type: 'writeQueued', policy: 'mail', id: queued.id, key: 'ann' }]);
    expect(events.some((e) => e.type === 'replayed')).toBe(false);
    up = true;
    await clock.advance(100);
    expect(events.filter((e) => e.type === 'replayed')).toEqual([{ type: 'replayed', policy: 'mail', id: queued.id, key: 'ann' }]);
    w.close();
  });
});
