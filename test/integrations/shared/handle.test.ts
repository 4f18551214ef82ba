import { Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { handleOf } from '../../../integrations/shared/handle.js';

describe('handleOf', () => {
  it('dispose unsubscribes, then runs the cleanup, once however often it is called', () => {
    const source = new Subject<number>();
    const seen: number[] = [];
    const order: string[] = [];
    const sub = source.subscribe((v) => seen.push(v));
    sub.add(() => order.push('unsubscribed'));
    const handle = handleOf(sub, () => order.push('cleanup'));
    source.next(1);
    handle.dispose();
    source.next(2);
    handle.dispose();
    handle[Symbol.dispose]();
    expect(seen).toEqual([1]);
    expect(order).toEqual(['unsubscribed', 'cleanup']);
  });

  it('[Symbol.dispose] disposes like dispose()', () => {
    const source = new Subject<number>();
    let cleanups = 0;
    const handle = handleOf(source.subscribe(), () => cleanups++);
    expect(source.observed).toBe(true);
    handle[Symbol.dispose]();
    expect(source.observed).toBe(false);
    expect(cleanups).toBe(1);
  });
});
