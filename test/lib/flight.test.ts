import { describe, expect, it } from 'vitest';
import { Context, EMPTY_META, Scope } from '../../lib/context.js';
import { SingleFlight, type FlightHost } from '../../lib/flight.js';
import { TestClock } from '../../lib/testing.js';

interface Report {
  start: number;
  failed: boolean;
  error: unknown;
  scope: Scope | undefined;
}

/** A host that records what the flight tells it. */
function host(listening = true) {
  const reports: Report[] = [];
  const forgotten: string[] = [];
  const h: FlightHost = {
    forget: (f) => forgotten.push(f.key),
    settled: (start, failed, error, scope) => reports.push({ start, failed, error, scope }),
    listening: () => listening,
  };
  return { h, reports, forgotten };
}

/** A flight whose run the test settles by hand. */
class Manual<R> extends SingleFlight<R> {
  readonly promise: Promise<R>;
  resolve!: (value: R) => void;
  reject!: (error: unknown) => void;
  constructor(h: FlightHost) {
    super('k', 'test', h);
    this.promise = new Promise<R>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }
  finish(): void {
    this.markOver();
  }
}

const clock = new TestClock();
function callerCtx(): { ctx: Context; cancel: (reason: unknown) => void } {
  const ac = new AbortController();
  const scope = new Scope(undefined, ac.signal, Infinity, undefined, 'caller', false);
  return { ctx: new Context(clock, scope, undefined, 1, 'k', EMPTY_META), cancel: (r) => ac.abort(r) };
}
const bare = () => new Context(clock, undefined, undefined, 1, 'k', EMPTY_META);

describe('SingleFlight', () => {
  it('gives every joined caller the one run’s value and reports each', async () => {
    const { h, reports } = host();
    const f = new Manual<number>(h);
    const a = f.join(callerCtx().ctx, 10);
    const b = f.join(callerCtx().ctx, 20);
    expect([f.callers, f.joins]).toEqual([2, 2]);
    f.resolve(5);
    await expect(Promise.all([a, b])).resolves.toEqual([5, 5]);
    expect(reports.map((r) => [r.start, r.failed])).toEqual([
      [10, false],
      [20, false],
    ]);
  });

  it('gives every caller the run’s error', async () => {
    const { h, reports } = host();
    const f = new Manual<number>(h);
    const a = f.join(callerCtx().ctx, 0);
    const boom = new Error('boom');
    f.reject(boom);
    await expect(a).rejects.toBe(boom);
    expect(reports).toMatchObject([{ failed: true, error: boom }]);
  });

  it('rejects a caller that cancels alone and at once; the run goes on for the others', async () => {
    const { h, reports, forgotten } = host();
    const f = new Manual<number>(h);
    const first = callerCtx();
    const a = f.join(first.ctx, 0);
    const b = f.join(callerCtx().ctx, 0);
    const reason = new Error('gone');
    first.cancel(reason);
    await expect(a).rejects.toBe(reason);
    expect(f.scope.aborted).toBe(false);
    expect(forgotten).toEqual([]);
    expect(f.callers).toBe(1);
    f.resolve(3);
    await expect(b).resolves.toBe(3);
    expect(reports.map((r) => r.failed)).toEqual([true, false]);
  });

  it('aborts the run and forgets it when the last caller leaves', async () => {
    const { h, forgotten } = host();
    const f = new Manual<number>(h);
    const one = callerCtx();
    const two = callerCtx();
    const a = f.join(one.ctx, 0);
    const b = f.join(two.ctx, 0);
    one.cancel(new Error('x'));
    await expect(a).rejects.toThrow('x');
    const last = new Error('y');
    two.cancel(last);
    await expect(b).rejects.toBe(last);
    expect(forgotten).toEqual(['k']);
    expect(f.scope.aborted).toBe(true);
    expect(f.scope.byCaller).toBe(true);
    expect(f.scope.reason).toBe(last);
  });

  it('abandons nothing once the run is over', async () => {
    const { h, forgotten } = host();
    const f = new Manual<number>(h);
    const one = callerCtx();
    const a = f.join(one.ctx, 0);
    f.finish();
    one.cancel(new Error('late'));
    await expect(a).rejects.toThrow('late');
    expect(forgotten).toEqual([]);
    expect(f.scope.aborted).toBe(false);
  });

  it('refuses at once a caller whose scope had already aborted', async () => {
    const { h } = host();
    const f = new Manual<number>(h);
    const c = callerCtx();
    c.cancel(new Error('before'));
    await expect(f.join(c.ctx, 0)).rejects.toThrow('before');
    expect(f.callers).toBe(0);
    expect(f.scope.aborted).toBe(true);
  });

  it('hands a caller nothing can cancel the shared promise itself while the host does not listen', async () => {
    const quiet = host(false);
    const f = new Manual<number>(quiet.h);
    expect(f.join(bare(), 0)).toBe(f.promise);
    f.resolve(1);
    await f.promise;
    expect(quiet.reports).toEqual([]);

    const loud = host(true);
    const g = new Manual<number>(loud.h);
    const p = g.join(bare(), 7);
    expect(p).not.toBe(g.promise);
    g.resolve(2);
    await expect(p).resolves.toBe(2);
    expect(loud.reports).toEqual([{ start: 7, failed: false, error: undefined, scope: undefined }]);
  });
});
