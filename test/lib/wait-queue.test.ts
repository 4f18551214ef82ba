import { describe, expect, it } from 'vitest';
import { WaitQueue, type QueueNode } from '../../lib/wait-queue.js';

function node(name: string, log: string[]): QueueNode {
  return { prev: undefined, next: undefined, grant: () => log.push(name) };
}

/** Shifts every node out, granting each, and returns the order. */
function drain(q: WaitQueue, log: string[]): string[] {
  for (let w = q.shift(); w !== undefined; w = q.shift()) w.grant();
  return log;
}

describe('WaitQueue', () => {
  it('is first in, first out, and counts its size', () => {
    const log: string[] = [];
    const q = new WaitQueue();
    expect(q.shift()).toBeUndefined();
    for (const n of ['a', 'b', 'c']) q.push(node(n, log));
    expect(q.size).toBe(3);
    expect(drain(q, log)).toEqual(['a', 'b', 'c']);
    expect(q.size).toBe(0);
  });

  it('removes a node from the head, the middle or the tail, and keeps the rest in order', () => {
    for (const gone of [0, 1, 2]) {
      const log: string[] = [];
      const q = new WaitQueue();
      const nodes = ['a', 'b', 'c'].map((n) => node(n, log));
      for (const n of nodes) q.push(n);
      q.remove(nodes[gone]!);
      expect(q.size).toBe(2);
      expect(nodes[gone]).toMatchObject({ prev: undefined, next: undefined });
      expect(drain(q, log)).toEqual(['a', 'b', 'c'].filter((_, i) => i !== gone));
    }
  });

  it('removing a node twice, or one never queued, changes nothing', () => {
    const log: string[] = [];
    const q = new WaitQueue();
    const a = node('a', log);
    const b = node('b', log);
    q.push(a);
    q.push(b);
    q.remove(b);
    q.remove(b);
    q.remove(node('stranger', log));
    expect(q.size).toBe(1);
    expect(drain(q, log)).toEqual(['a']);
  });

  it('the only node removed empties the queue; pushing again works from empty', () => {
    const log: string[] = [];
    const q = new WaitQueue();
    const a = node('a', log);
    q.push(a);
    q.remove(a);
    expect(q.size).toBe(0);
    expect(q.shift()).toBeUndefined();
    q.push(node('b', log));
    q.push(a);
    expect(drain(q, log)).toEqual(['b', 'a']);
  });

  it('shows its oldest and newest node without taking them out', () => {
    const log: string[] = [];
    const q = new WaitQueue();
    expect([q.first, q.last]).toEqual([undefined, undefined]);
    const [a, b, c] = ['a', 'b', 'c'].map((n) => node(n, log));
    q.push(a!);
    expect([q.first, q.last]).toEqual([a, a]);
    q.push(b!);
    q.push(c!);
    expect([q.first, q.last]).toEqual([a, c]);
    q.remove(c!);
    expect(q.last).toBe(b);
    expect(q.size).toBe(2);
  });
});
