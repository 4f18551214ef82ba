import { describe, expect, it } from 'vitest';
import { BulkheadRejectedError, ConfigError, keyedBulkhead, type PolicyEvent } from '../../../api/index.js';
import { TestClock } from '../../../lib/testing.js';
import { deferred } from '../../helpers/track.js';
import { issuesOf } from '../../helpers/config-issues.js';

const T0 = 1_700_000_000_000;

function setup(options: { maxKeys?: number; idleMs?: number; queue?: number } = {}) {
  const clock = new TestClock(T0);
  const b = keyedBulkhead({ key: (ctx) => ctx.meta.tenant ?? 'anonymous', limit: 2, clock, ...options });
  /** Starts a call of `tenant` that runs until `release()`; `result` settles with its value or error. */
  const start = (tenant: string) => {
    const gate = deferred<string>();
    const result = b.execute(() => gate.promise, { meta: { tenant } }).catch((e: unknown) => e);
    return { release: () => gate.resolve(tenant), result };
  };
  return { clock, b, start };
}

describe('keyedBulkhead', () => {
  it("bounds each key's calls alone: one tenant's full bulkhead leaves the others their slots", async () => {
    const { b, start } = setup();
    const a = [start('a'), start('a'), start('a')];
    expect(await a[2]!.result).toBeInstanceOf(BulkheadRejectedError);
    const other = start('b');
    expect(b.peek('b')!.executing).toBe(1);
    expect(b.peek('a')!.executing).toBe(2);
    a[0]!.release();
    other.release();
    expect(await a[0]!.result).toBe('a');
    expect(await other.result).toBe('b');
    expect(b.peek('a')!.executing).toBe(1);
  });

  it("each key's bulkhead has the shared options and its own name; events come out of the keyed policy", async () => {
    const { b, start } = setup({ queue: 1 });
    const events: PolicyEvent[] = [];
    b.events$.subscribe((e) => events.push(e));
    const calls = [start('t'), start('t'), start('t')]; // the third waits
    expect(b.peek('t')!.queued).toBe(1);
    expect(b.peek('t')!.name).toBe('keyedBulkhead:t');
    expect(events.some((e) => e.type === 'queued' && e.policy === 'keyedBulkhead:t')).toBe(true);
    for (const c of calls) c.release();
    await Promise.all(calls.map((c) => c.result));
  });

  it('drops a key idle for longer than idleMs, never while a call runs in it', async () => {
    const { clock, b, start } = setup({ idleMs: 1_000 });
    const long = start('a');
    start('b').release();
    await clock.advance(1_001);
    start('c').release();
    expect([...b.keys()].sort()).toEqual(['a', 'c']); // b dropped; a runs a call
    long.release();
    await long.result;
    await clock.advance(1_001);
    start('c').release();
    expect([...b.keys()]).toEqual(['c']);
  });

  it('holds at most maxKeys: a new key takes the place of an idle bulkhead, and is refused while all are busy', async () => {
    const { b, start } = setup({ maxKeys: 2, idleMs: 600_000 });
    const a = start('a');
    const c = start('c');
    const refused = await start('d').result;
    expect(refused).toBeInstanceOf(BulkheadRejectedError);
    expect((refused as Error).message).toMatch(/maxKeys \(2\)/);
    a.release();
    await a.result;
    const d = start('d'); // a is idle now: d takes its place
    expect([...b.keys()]).toEqual(['c', 'd']);
    c.release();
    d.release();
    await Promise.all([c.result, d.result]);
  });

  it('refuses bad options with ConfigError naming the option', () => {
    expect(() => keyedBulkhead({ limit: 1 } as never)).toThrow(ConfigError);
    expect(issuesOf(() => keyedBulkhead({ key: () => 'k', limit: 0, maxKeys: 1.5 }))).toEqual([
      { path: 'limit', message: 'expected an integer >= 1' },
      { path: 'maxKeys', message: 'expected an integer >= 1' },
    ]);
  });
});

describe('KeyedBulkheadPolicy.reconfigure', () => {
  it("raises every held key's limit in place (its waiter runs at once) and the limit of keys made after", async () => {
    const { b, start } = setup({ queue: 1 });
    const a = [start('a'), start('a'), start('a')]; // the third waits
    await Promise.resolve();
    expect([b.peek('a')!.executing, b.peek('a')!.queued]).toEqual([2, 1]);
    b.reconfigure({ limit: 3, queue: 1 });
    expect([b.peek('a')!.limit, b.peek('a')!.executing, b.peek('a')!.queued]).toEqual([3, 3, 0]);
    const c = [start('c'), start('c'), start('c')];
    await Promise.resolve();
    expect(b.peek('c')!.executing).toBe(3);
    for (const x of [...a, ...c]) x.release();
    expect(await Promise.all(a.map((x) => x.result))).toEqual(['a', 'a', 'a']);
  });

  it('changes its bounds in place, and refuses partitions or a bad value, changing nothing', () => {
    const { b } = setup({ maxKeys: 4 });
    b.reconfigure({ limit: 2, maxKeys: 8, idleMs: 5_000 });
    expect([b.maxKeys, b.idleMs]).toEqual([8, 5_000]);
    expect(issuesOf(() => b.reconfigure({ limit: 2, partitions: { live: 1 } }))).toEqual([
      { path: 'partitions', message: 'cannot change in place (it shapes the bookkeeping); build a new bulkhead' },
    ]);
    expect(issuesOf(() => b.reconfigure({ limit: 0 }))[0]!.path).toBe('limit');
    expect([b.maxKeys, b.idleMs]).toEqual([8, 5_000]);
  });
});
