import { Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { EventSource, mergeEvents } from '../../lib/events.js';

describe('mergeEvents', () => {
  it('passes every event of every source as it comes, and stops on unsubscribe', () => {
    const a = new Subject<number>();
    const b = new Subject<number>();
    const seen: number[] = [];
    const sub = mergeEvents([a, b]).subscribe((v) => seen.push(v));
    a.next(1);
    b.next(2);
    a.next(3);
    sub.unsubscribe();
    a.next(4);
    b.next(5);
    expect(seen).toEqual([1, 2, 3]);
    expect(a.observed || b.observed).toBe(false);
  });

  it('completes when every source has, and ends on the first error', () => {
    const a = new Subject<number>();
    const b = new Subject<number>();
    let completed = false;
    mergeEvents([a, b]).subscribe({ complete: () => (completed = true) });
    a.complete();
    expect(completed).toBe(false);
    b.complete();
    expect(completed).toBe(true);

    const c = new Subject<number>();
    const d = new Subject<number>();
    const errors: unknown[] = [];
    mergeEvents([c, d]).subscribe({ error: (e) => errors.push(e) });
    c.error('boom');
    expect(errors).toEqual(['boom']);
    expect(d.observed).toBe(false);
  });

  it('is the source itself for one source, and completes at once for none', () => {
    const s = new EventSource();
    expect(mergeEvents([s.events$])).toBe(s.events$);
    let completed = false;
    mergeEvents([]).subscribe({ complete: () => (completed = true) });
    expect(completed).toBe(true);
  });
});
