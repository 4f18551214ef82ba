import { describe, expect, it } from 'vitest';
import { ConfigError, BulkheadRejectedError } from '../../../lib/errors.js';
import { TestClock } from '../../../lib/testing.js';
import { outlierDetection, type OutlierDetectionPolicy } from '../../../policies/outlier/index.js';
import { policy } from '../../../api/builder.js';
import { constant } from '../../../policies/retry/index.js';
import { own } from '../../helpers/events.js';

const fail = async (): Promise<never> => {
  throw new Error('503');
};
const ok = async (): Promise<string> => 'ok';

/** Runs `n` calls of `op` against `host` (ignoring their results). */
async function calls(p: OutlierDetectionPolicy, host: string, n: number, op: () => Promise<unknown> = fail): Promise<void> {
  for (let i = 0; i < n; i++) await p.execute(op, { meta: { host } }).catch(() => undefined);
}

/** The next `n` hosts pick gives. */
function picks(p: OutlierDetectionPolicy, n: number): string[] {
  return Array.from({ length: n }, () => p.pick());
}

describe('outlierDetection', () => {
  it('goes round the pool, and ejects a host after consecutiveFailures failures in a row (5 by default)', async () => {
    const clock = new TestClock();
    const p = outlierDetection({ hosts: ['a', 'b', 'c'], maxEjectionPercent: 50, clock });
    expect(picks(p, 4)).toEqual(['a', 'b', 'c', 'a']);
    await calls(p, 'b', 4);
    expect(p.status().find((s) => s.host === 'b')).toMatchObject({ ejected: false, consecutiveFailures: 4 });
    await calls(p, 'b', 1);
    expect(p.status().find((s) => s.host === 'b')).toEqual({ host: 'b', ejected: true, returnsAt: 30_000, ejections: 1, consecutiveFailures: 0 });
    expect(new Set(picks(p, 6))).toEqual(new Set(['a', 'c']));
  });

  it('resets a host’s run on a success', async () => {
    const p = outlierDetection({ hosts: ['a', 'b'], consecutiveFailures: 3, clock: new TestClock() });
    await calls(p, 'a', 2);
    await calls(p, 'a', 1, ok);
    await calls(p, 'a', 2);
    expect(p.status()[0]).toMatchObject({ ejected: false, consecutiveFailures: 2 });
    await calls(p, 'a', 1);
    expect(p.status()[0]!.ejected).toBe(true);
  });

  it('brings a host back after the base ejection time × its ejections, at most maxEjectionMs', async () => {
    const clock = new TestClock();
    const p = outlierDetection({ hosts: ['a', 'b'], consecutiveFailures: 1, baseEjectionMs: 1_000, maxEjectionMs: 2_500, intervalMs: 60_000, clock });
    const seen = own(p);
    await calls(p, 'a', 1);
    expect(p.status()[0]!.returnsAt).toBe(1_000);
    await clock.advance(999);
    expect(p.status()[0]!.ejected).toBe(true);
    await clock.advance(1);
    expect(p.status()[0]!.ejected).toBe(false);
    await calls(p, 'a', 1); // the second ejection: 2 × 1 s
    expect(p.status()[0]).toMatchObject({ ejected: true, ejections: 2, returnsAt: 1_000 + 2_000 });
    await clock.advance(2_000);
    await calls(p, 'a', 1); // the third: 3 s, capped at 2.5 s
    expect(p.status()[0]).toMatchObject({ ejected: true, ejections: 3, returnsAt: 3_000 + 2_500 });
    expect(seen).toEqual([
      { type: 'hostEjected', policy: 'outlierDetection', host: 'a', ejections: 1, ejectionMs: 1_000 },
      { type: 'hostReturned', policy: 'outlierDetection', host: 'a' },
      { type: 'hostEjected', policy: 'outlierDetection', host: 'a', ejections: 2, ejectionMs: 2_000 },
      { type: 'hostReturned', policy: 'outlierDetection', host: 'a' },
      { type: 'hostEjected', policy: 'outlierDetection', host: 'a', ejections: 3, ejectionMs: 2_500 },
    ]);
  });

  it('takes one off a host’s ejection count per whole interval it spends back in the pool', async () => {
    const clock = new TestClock();
    const p = outlierDetection({ hosts: ['a', 'b'], consecutiveFailures: 1, baseEjectionMs: 1_000, intervalMs: 10_000, clock });
    await calls(p, 'a', 1);
    await clock.advance(1_000);
    await calls(p, 'a', 1);
    expect(p.status()[0]!.ejections).toBe(2);
    await clock.advance(2_000); // back at 3 s
    await clock.advance(19_999); // 1 whole interval back: 2 - 1 + 1
    await calls(p, 'a', 1);
    expect(p.status()[0]).toMatchObject({ ejections: 2, returnsAt: 22_999 + 2_000 });
    await clock.advance(2_000 + 30_000); // 3 whole intervals back: max(0, 2 - 3) + 1
    await calls(p, 'a', 1);
    expect(p.status()[0]).toMatchObject({ ejections: 1 });
  });

  it('never ejects more than maxEjectionPercent of the pool, but one host when the share rounds to 0', async () => {
    const clock = new TestClock();
    const small = outlierDetection({ hosts: ['a', 'b', 'c'], consecutiveFailures: 1, clock });
    expect(small.maxEjected).toBe(1);
    const seen = own(small);
    await calls(small, 'a', 1);
    await calls(small, 'b', 1);
    expect(small.status().map((s) => s.ejected)).toEqual([true, false, false]);
    expect(seen.at(-1)).toEqual({ type: 'ejectionSkipped', policy: 'outlierDetection', host: 'b', ejected: 1 });
    // b's next failure, once a is back, ejects it: the run was kept
    await clock.advance(30_000);
    await calls(small, 'b', 1);
    expect(small.status().map((s) => s.ejected)).toEqual([false, true, false]);

    const twenty = outlierDetection({ hosts: Array.from({ length: 20 }, (_, i) => `h${i}`), consecutiveFailures: 1, clock });
    expect(twenty.maxEjected).toBe(2);
    for (const h of ['h0', 'h1', 'h2', 'h3']) await calls(twenty, h, 1);
    expect(twenty.status().filter((s) => s.ejected).map((s) => s.host)).toEqual(['h0', 'h1']);

    const off = outlierDetection({ hosts: ['a', 'b'], consecutiveFailures: 1, maxEjectionPercent: 0, clock });
    expect(off.maxEjected).toBe(0);
    await calls(off, 'a', 3);
    expect(off.status()[0]!.ejected).toBe(false);
  });

  it('with every host out, picks the one that returns first rather than none', async () => {
    const clock = new TestClock();
    const p = outlierDetection({ hosts: ['only'], consecutiveFailures: 1, clock });
    await calls(p, 'only', 1);
    expect(p.status()[0]!.ejected).toBe(true);
    expect(p.pick()).toBe('only');
    const both = outlierDetection({ hosts: ['a', 'b'], consecutiveFailures: 1, maxEjectionPercent: 100, baseEjectionMs: 1_000, clock });
    await calls(both, 'b', 1);
    await clock.advance(500);
    await calls(both, 'a', 1);
    expect(picks(both, 2)).toEqual(['b', 'b']);
  });

  it('puts the host it picks in ctx.meta for the operation, and keeps the one a call names', async () => {
    const p = outlierDetection({ hosts: ['a', 'b'], hostKey: 'upstream', clock: new TestClock() });
    const got: string[] = [];
    await p.execute(async (ctx) => got.push(ctx.meta['upstream']!));
    await p.execute(async (ctx) => got.push(ctx.meta['upstream']!));
    await p.execute(async (ctx) => got.push(ctx.meta['upstream']!), { meta: { upstream: 'b', tenant: 't1' } });
    expect(got).toEqual(['a', 'b', 'b']);
  });

  it('counts what handle and handleResult say, and never a shed rejection, the caller’s cancellation or an unknown host', async () => {
    const clock = new TestClock();
    const p = outlierDetection({
      hosts: ['a', 'b'],
      consecutiveFailures: 2,
      handle: (e) => !(e instanceof RangeError),
      handleResult: (r) => (r as { status: number }).status >= 500,
      clock,
    });
    await calls(p, 'a', 3, async () => {
      throw new RangeError('a bug of ours, not the host');
    });
    await calls(p, 'a', 3, async () => {
      throw new BulkheadRejectedError('inner');
    });
    const ac = new AbortController();
    const hung = p.execute(() => new Promise(() => undefined), { meta: { host: 'a' }, signal: ac.signal });
    ac.abort();
    await hung.catch(() => undefined);
    await calls(p, 'zzz', 3);
    expect(p.status()[0]).toMatchObject({ ejected: false, consecutiveFailures: 0 });
    await calls(p, 'a', 2, async () => ({ status: 503 }));
    expect(p.status()[0]!.ejected).toBe(true);
  });

  it('passes every result and error through unchanged', async () => {
    const p = outlierDetection({ hosts: ['a'], clock: new TestClock() });
    await expect(p.execute(ok)).resolves.toBe('ok');
    const boom = new Error('boom');
    await expect(
      p.execute(async () => {
        throw boom;
      }),
    ).rejects.toBe(boom);
  });

  it('setHosts keeps the record of hosts that stay, starts new ones clean, and refuses a bad list', async () => {
    const clock = new TestClock();
    const p = outlierDetection({ hosts: ['a', 'b', 'c'], consecutiveFailures: 1, clock });
    await calls(p, 'a', 1);
    p.setHosts(['a', 'd']);
    expect(p.hosts).toEqual(['a', 'd']);
    expect(p.status()).toEqual([
      { host: 'a', ejected: true, returnsAt: 30_000, ejections: 1, consecutiveFailures: 0 },
      { host: 'd', ejected: false, returnsAt: undefined, ejections: 0, consecutiveFailures: 0 },
    ]);
    expect(() => p.setHosts([])).toThrow(ConfigError);
    expect(() => p.setHosts(['a', 'a'])).toThrow(/\[1\]: expected each host once \(a repeats\)/);
    expect(p.hosts).toEqual(['a', 'd']);
  });

  it('inside retry, each attempt picks its host: a call survives a dead host', async () => {
    const clock = new TestClock();
    const p = policy({ clock }).use(outlierDetection({ hosts: ['dead', 'live'], consecutiveFailures: 2, clock })).retry({ maxAttempts: 2, backoff: constant(0) });
    const hit: string[] = [];
    const op = async (ctx: { meta: Readonly<Record<string, string>> }) => {
      hit.push(ctx.meta['host']!);
      if (ctx.meta['host'] === 'dead') throw new Error('503');
      return ctx.meta['host'];
    };
    for (let i = 0; i < 4; i++) await expect(p.execute(op)).resolves.toBe('live');
    // the first two calls each try dead first (round the pool), then live; dead, failed twice, is out: the rest go to live at once
    expect(hit).toEqual(['dead', 'live', 'dead', 'live', 'live', 'live']);
  });
});
