import { describe, expect, it } from 'vitest';
import { KeyedMap } from '../../lib/keyed.js';

/** A value that says whether it may be dropped. */
class Box {
  busy = false;
  constructor(readonly key: string) {}
}

function map(maxKeys: number, idleMs: number) {
  const made: string[] = [];
  const m = new KeyedMap<Box>(
    (key) => (made.push(key), new Box(key)),
    (b) => !b.busy,
    { maxKeys, idleMs },
  );
  return { m, made };
}

describe('KeyedMap', () => {
  it('makes a value on first use and hands the same one back', () => {
    const { m, made } = map(10, 1_000);
    const a = m.get('a', 0)!;
    expect(m.get('a', 1)).toBe(a);
    expect(made).toEqual(['a']);
    expect(m.peek('b')).toBeUndefined();
    expect(m.size).toBe(1);
  });

  it('drops a value idle for longer than idleMs when next used, not at idleMs exactly', () => {
    const { m } = map(10, 1_000);
    m.get('a', 0);
    m.get('b', 1_000); // a idle exactly 1 000: kept
    expect([...m.keys()]).toEqual(['a', 'b']);
    m.get('b', 1_001); // a idle 1 001: dropped
    expect([...m.keys()]).toEqual(['b']);
  });

  it('keeps an idle value that may not be dropped, and looks at it again only after another idleMs', () => {
    const { m } = map(10, 1_000);
    m.get('a', 0)!.busy = true;
    m.get('b', 2_000);
    expect(m.peek('a')).toBeDefined(); // kept, its idle time started again at 2 000
    m.peek('a')!.busy = false;
    m.get('b', 2_500);
    expect(m.peek('a')).toBeDefined(); // idle 500 since it was looked at
    expect(m.prune(3_001)).toBe(1); // a idle 1 001: dropped; b idle 501
    expect([...m.keys()]).toEqual(['b']);
    expect(m.prune(3_501)).toBe(1);
    expect(m.size).toBe(0);
  });

  it('never drops the key being used, however long it was idle', () => {
    const { m } = map(10, 1_000);
    const a = m.get('a', 0)!;
    expect(m.get('a', 10_000)).toBe(a);
  });

  it('holds at most maxKeys: a new key takes the place of the least recently used one that may be dropped', () => {
    const { m } = map(2, 60_000);
    m.get('a', 0);
    m.get('b', 1);
    m.get('a', 2); // b is now the least recently used
    m.get('c', 3);
    expect([...m.keys()]).toEqual(['a', 'c']);
    expect(m.size).toBe(2);
  });

  it('refuses a new key when the least recently used one may not be dropped; existing keys still work', () => {
    const { m, made } = map(2, 60_000);
    m.get('a', 0)!.busy = true;
    m.get('b', 1);
    expect(m.get('c', 2)).toBeUndefined();
    expect(made).toEqual(['a', 'b']);
    expect(m.get('b', 3)).toBeDefined();
    m.peek('a')!.busy = false;
    expect(m.get('c', 4)?.key).toBe('c'); // a made room
    expect([...m.keys()]).toEqual(['b', 'c']);
  });
});
