import { describe, expect, it } from 'vitest';
import { Context, Scope } from '../../../lib/context.js';
import type { Chain, Operation } from '../../../lib/policy.js';
import { TestClock } from '../../../lib/testing.js';
import type { QueueNode } from '../../../lib/wait-queue.js';
import { Slot, Waiter, type SlotOwner } from '../../../policies/bulkhead/queue.js';

const T0 = 1_700_000_000_000;

/** A bulkhead stand-in that records what its waiters and slots tell it. */
function owner() {
  const log: unknown[][] = [];
  const o: SlotOwner = {
    run: <R>(op: Operation<R>, c: Context, next: Chain | undefined, start: number) => {
      log.push(['run', c, next, start]);
      return Promise.resolve(op(c));
    },
    dequeue: (waiter: QueueNode, scope: Scope, start: number) => void log.push(['dequeue', waiter, scope, start]),
    settled: (start: number, failed: boolean, error: unknown, scope: Scope | undefined) => void log.push(['settled', start, failed, error, scope]),
    release: () => void log.push(['release']),
  };
  return { o, log };
}

const newScope = () => new Scope(undefined, undefined, Infinity, undefined, 'test', false);
const contextOf = (scope: Scope | undefined) => new Context(new TestClock(T0), scope, undefined, 1, undefined, {});

describe('Waiter', () => {
  it('grant runs the call through its owner with its context, chain and start time', async () => {
    const { o, log } = owner();
    const c = contextOf(newScope());
    const w = new Waiter(o, () => 'ran', c, undefined, T0 - 5);
    expect(log).toEqual([]);
    w.grant();
    expect(await w.promise).toBe('ran');
    expect(log).toEqual([['run', c, undefined, T0 - 5]]);
  });

  it('a hard abort while waiting takes it out of the queue and rejects it with the abort’s reason', async () => {
    const { o, log } = owner();
    const scope = newScope();
    const w = new Waiter(o, () => 'ran', contextOf(scope), undefined, T0);
    const reason = new Error('caller gave up');
    scope.abort(reason, true, false);
    await expect(w.promise).rejects.toBe(reason);
    expect(log).toEqual([['dequeue', w, scope, T0]]);
  });

  it('once granted, a later abort no longer concerns it', async () => {
    const { o, log } = owner();
    const scope = newScope();
    const w = new Waiter(o, () => 'ran', contextOf(scope), undefined, T0);
    w.grant();
    scope.abort(new Error('late'), true, false);
    expect(await w.promise).toBe('ran');
    expect(log.map((e) => e[0])).toEqual(['run']);
  });

  it('a cooperative abort leaves it waiting; a hard abort after it still takes it out', async () => {
    const { o, log } = owner();
    const scope = newScope();
    const w = new Waiter(o, () => 'ran', contextOf(scope), undefined, T0);
    scope.abort(new Error('please stop'), false, true);
    expect(log).toEqual([]);
    const hard = new Error('now');
    scope.abort(hard, true, false);
    await expect(w.promise).rejects.toBe(hard);
    expect(log).toEqual([['dequeue', w, scope, T0]]);
  });

  it('a call that nothing can cancel (no scope) just waits for its grant', async () => {
    const { o } = owner();
    const w = new Waiter(o, () => 7, contextOf(undefined), undefined, T0);
    w.grant();
    expect(await w.promise).toBe(7);
  });
});

describe('Slot', () => {
  it('ok and err report the outcome with the start time and scope, then free the slot', () => {
    const scope = newScope();
    const a = owner();
    new Slot(a.o, () => 1, T0, scope).ok();
    expect(a.log).toEqual([['settled', T0, false, undefined, scope], ['release']]);
    const b = owner();
    const boom = new Error('boom');
    new Slot(b.o, () => 1, T0, undefined).err(boom);
    expect(b.log).toEqual([['settled', T0, true, boom, undefined], ['release']]);
  });

  it('an operation still running holds the slot after the chain settled, until it settles too', async () => {
    const { o, log } = owner();
    let finish!: (v: string) => void;
    const slot = new Slot(o, () => new Promise<string>((r) => (finish = r)), T0, undefined);
    const running = slot.op(contextOf(undefined));
    slot.ok(); // an aggressive timeout answered the caller; the operation runs on
    expect(log.map((e) => e[0])).toEqual(['settled']);
    finish('late');
    expect(await running).toBe('late');
    expect(log.map((e) => e[0])).toEqual(['settled', 'release']);
  });

  it('counts every call of the operation (a retry inside the slot), and a rejected one too', async () => {
    const { o, log } = owner();
    const fails: ((e: Error) => void)[] = [];
    const slot = new Slot(o, () => new Promise<never>((_, no) => fails.push(no)), T0, undefined);
    const first = Promise.resolve(slot.op(contextOf(undefined)));
    const second = Promise.resolve(slot.op(contextOf(undefined)));
    first.then(undefined, () => {});
    second.then(undefined, () => {});
    slot.err(new Error('gave up'));
    fails[0]!(new Error('1'));
    await first.catch(() => {});
    expect(log.map((e) => e[0])).toEqual(['settled']);
    fails[1]!(new Error('2'));
    await second.catch(() => {});
    expect(log.map((e) => e[0])).toEqual(['settled', 'release']);
  });

  it('an operation that answers or throws at once is counted out at once', () => {
    const { o, log } = owner();
    const boom = new Error('sync');
    let calls = 0;
    const slot = new Slot(
      o,
      () => {
        if (++calls === 2) throw boom;
        return 'now';
      },
      T0,
      undefined,
    );
    expect(slot.op(contextOf(undefined))).toBe('now');
    expect(() => slot.op(contextOf(undefined))).toThrow(boom);
    expect(log).toEqual([]);
    slot.ok();
    expect(log.map((e) => e[0])).toEqual(['settled', 'release']);
  });

  it('after the slot is freed, a straggling call runs uncounted and frees nothing twice', () => {
    const { o, log } = owner();
    const slot = new Slot(o, () => 'again', T0, undefined);
    slot.ok();
    expect(slot.op(contextOf(undefined))).toBe('again');
    expect(log.map((e) => e[0])).toEqual(['settled', 'release']);
  });
});
