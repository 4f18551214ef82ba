import { describe, expect, it } from 'vitest';
import { isWriteQueue, memoryWriteQueue, strategies } from '../../../api/index.js';

describe('write queues', () => {
  const fn = async () => undefined;

  it('isWriteQueue: an object with push, peek and ack functions, nothing less', () => {
    expect(isWriteQueue(memoryWriteQueue())).toBe(true);
    expect(isWriteQueue({ push: fn, peek: fn, ack: fn })).toBe(true);
    for (const q of [null, undefined, 'queue', fn, { peek: fn, ack: fn }, { push: fn, ack: fn }, { push: fn, peek: fn }, { push: fn, peek: fn, ack: 'ack' }]) {
      expect(isWriteQueue(q)).toBe(false);
    }
    expect(() => strategies.writeBehind({ deliver: fn, store: { push: fn, peek: fn } as never })).toThrow('store: expected a WriteQueue (push, peek, ack)');
  });

  it('memoryWriteQueue: acks remove exactly the write named, an unknown id nothing', async () => {
    const q = memoryWriteQueue();
    for (const id of ['a', 'b', 'c']) await q.push({ id, key: 'k', payload: { id }, queuedAt: 0 });
    await q.ack('b');
    await q.ack('zz');
    expect((await q.peek(10)).map((w) => w.id)).toEqual(['a', 'c']);
    await q.ack('a');
    expect((await q.peek(10)).map((w) => w.id)).toEqual(['c']);
    expect(await q.peek(0)).toEqual([]);
  });
});
