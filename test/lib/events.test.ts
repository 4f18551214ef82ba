import { BehaviorSubject, Subject, take } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { EventSource, mergeEvents, ValueSource } from '../../lib/events.js';

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

describe('ValueSource', () => {
  /** What each of three subscribers (joining at different times, one leaving) sees of `values`, driven through `source`. */
  function script(source: { value$: { subscribe(f: (v: string) => void): { unsubscribe(): void } }; next(v: string): void }): string[][] {
    const seen: string[][] = [[], [], []];
    const first = source.value$.subscribe((v) => seen[0]!.push(v));
    source.next('open');
    const second = source.value$.subscribe((v) => seen[1]!.push(v));
    source.next('half-open');
    first.unsubscribe();
    source.next('closed');
    source.value$.subscribe((v) => seen[2]!.push(v));
    second.unsubscribe();
    source.next('open');
    return seen;
  }

  it("replays the current value to each new subscriber, then every change, as a BehaviorSubject's asObservable() does", () => {
    const subject = new BehaviorSubject('closed');
    const expected = script({ value$: subject.asObservable(), next: (v) => subject.next(v) });
    const ours = new ValueSource('closed');
    expect(script(ours)).toEqual(expected);
    expect(expected).toEqual([['closed', 'open', 'half-open'], ['open', 'half-open', 'closed'], ['closed', 'open']]);
  });

  it('lets a subscriber that takes only the current value go at once', () => {
    const source = new ValueSource(1);
    const seen: number[] = [];
    source.value$.pipe(take(1)).subscribe((v) => seen.push(v));
    source.next(2);
    expect(seen).toEqual([1]);
    expect((source as unknown as { subscribers: unknown[] }).subscribers).toHaveLength(0);
  });
});
