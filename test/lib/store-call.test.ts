import { describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../../api/index.js';
import { boundedStoreCall } from '../../lib/store-call.js';
import { TestClock } from '../../lib/testing.js';

const T0 = 1_700_000_000_000;

describe('boundedStoreCall', () => {
  it('rejects at now + ms exactly with the deadline message', async () => {
    const clock = new TestClock(T0);
    let state = 'open';
    const p = boundedStoreCall(clock, 50, 'pol', 'claim', () => new Promise<never>(() => {}));
    p.then(
      () => (state = 'ok'),
      (e: Error) => (state = e.message),
    );
    await clock.advance(49);
    expect(state).toBe('open');
    await clock.advance(1);
    expect(state).toBe('store claim did not answer within 50 ms (pol)');
    await expect(p).rejects.toBeInstanceOf(StoreUnavailableError);
  });

  it('a failure becomes StoreUnavailableError with the message; a thrown call too', async () => {
    const clock = new TestClock(T0);
    await expect(boundedStoreCall(clock, 50, 'pol', 'complete', () => Promise.reject(new Error('boom')))).rejects.toThrow(
      /^store complete failed \(pol\): boom$/,
    );
    const thrown = boundedStoreCall(clock, 50, 'pol', 'claim', () => {
      throw new Error('sync');
    });
    await expect(thrown).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(thrown).rejects.toThrow(/^store claim failed \(pol\): sync$/);
    await expect(boundedStoreCall(clock, 50, 'pol', 'x', () => Promise.reject('nope'))).rejects.toThrow(/^store x failed \(pol\): nope$/);
    await expect(boundedStoreCall(clock, 50, 'pol', 'x', () => Promise.reject(undefined))).rejects.toThrow(
      /^store x failed \(pol\): undefined$/,
    );
    expect(clock.pendingTimers).toBe(0);
  });

  it('passes a StoreUnavailableError through unchanged', async () => {
    const clock = new TestClock(T0);
    const orig = new StoreUnavailableError('other', 'down');
    await expect(boundedStoreCall(clock, 50, 'pol', 'x', () => Promise.reject(orig))).rejects.toBe(orig);
  });

  it('an answer in time resolves; a late answer after the deadline is ignored', async () => {
    const clock = new TestClock(T0);
    await expect(boundedStoreCall(clock, 50, 'pol', 'x', () => Promise.resolve(7))).resolves.toBe(7);
    let late!: (v: number) => void;
    const p = boundedStoreCall(clock, 50, 'pol', 'x', () => new Promise<number>((r) => (late = r)));
    const seen: string[] = [];
    p.then(
      (v) => seen.push(`ok ${v}`),
      (e: Error) => seen.push(e.message),
    );
    await clock.advance(50);
    late(1);
    await clock.advance(0);
    expect(seen).toEqual(['store x did not answer within 50 ms (pol)']);
    // other calls on the same clock still work
    await expect(boundedStoreCall(clock, 10, 'pol', 'y', () => Promise.resolve(2))).resolves.toBe(2);
    expect(clock.pendingTimers).toBe(0);
  });
});
