import { spawn } from 'node:child_process';
import { Redis } from 'ioredis';
import { expect, it } from 'vitest';
import { ConfigError, StoreUnavailableError, strategies } from '../../../api/index.js';
import { redisWriteQueue, type RedisClient } from '../../../integrations/redis/index.js';
import { TestClock } from '../../../lib/testing.js';
import { describeRedis, freePort, useRedis } from '../../helpers/redis.js';

/** What a call rejected with (it must reject). */
async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    (v) => {
      throw new Error(`expected a rejection, got ${String(v)}`);
    },
    (e: unknown) => e,
  );
}

const item = (id: string, n = 1) => ({ id, key: 'k', payload: { n }, queuedAt: 0 });

it('refuses a value that is not an ioredis client, and bad options, with a ConfigError of redisWriteQueue naming them', () => {
  let error: unknown;
  try {
    redisWriteQueue({ status: 'ready' } as never);
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(ConfigError);
  expect(error).toMatchObject({
    policy: 'redisWriteQueue',
    message: 'invalid redisWriteQueue options: redis: expected an ioredis client (evalsha, eval)',
    issues: [{ path: 'redis', message: 'expected an ioredis client (evalsha, eval)' }],
  });
  const client = { evalsha: () => Promise.resolve(0), eval: () => Promise.resolve(0) };
  expect(() => redisWriteQueue(client, { commandTimeoutMs: -5 })).toThrow(
    new ConfigError('redisWriteQueue', [{ path: 'commandTimeoutMs', message: 'expected a number greater than 0' }]),
  );
  expect(() => redisWriteQueue(client, { commandTimeoutMs: -5 })).toThrow('invalid redisWriteQueue options: commandTimeoutMs: expected a number greater than 0');
});

describeRedis('writeBehind on a Redis queue', () => {
  const db = useRedis({ appendonly: true, retryMs: 100 });

  it('loses no queued write across a crash of the writing process and a restart of Redis', async () => {
    // A child process queues 20 writes while the target is down, then dies by SIGKILL.
    const script = `
      import { Redis } from 'ioredis';
      import { strategies } from './dist/index.js';
      import { redisWriteQueue } from './dist/redis.js';
      const redis = new Redis(${db.server.port}, '127.0.0.1');
      const w = strategies.writeBehind({ deliver: () => Promise.reject(new Error('down')), keyOf: (o) => o.k, store: redisWriteQueue(redis, { prefix: 'crash:' }) });
      for (let n = 1; n <= 20; n++) {
        const r = await w.write({ k: n % 3 === 0 ? 'x' : 'y', n });
        if (r.status !== 'queued') throw new Error('expected queued');
      }
      process.stdout.write('queued\\n');
      setInterval(() => {}, 1000);
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: new URL('../../..', import.meta.url).pathname, stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (d: Buffer) => d.toString().includes('queued') && resolve());
      child.on('exit', (code) => reject(new Error(`child exited ${code}`)));
    });
    child.kill('SIGKILL');
    // Redis itself restarts; the append-only file keeps the queue
    await db.server.stop();
    await db.server.start();
    const delivered: number[] = [];
    const w = strategies.writeBehind({
      deliver: (o: { n: number }) => void delivered.push(o.n),
      store: redisWriteQueue(db.redis, { prefix: 'crash:', commandTimeoutMs: 2_000 }),
      replayIntervalMs: 20,
    });
    for (let i = 0; i < 200 && delivered.length < 20; i++) await new Promise((r) => setTimeout(r, 25));
    w.close();
    expect([...delivered].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    // in order within each key
    const x = delivered.filter((n) => n % 3 === 0);
    expect(x).toEqual([...x].sort((a, b) => a - b));
    const y = delivered.filter((n) => n % 3 !== 0);
    expect(y).toEqual([...y].sort((a, b) => a - b));
    expect(await db.redis.llen('crash:order')).toBe(0);
  });

  it('a push sent but not answered in time is cancelled: it is not queued, and a late copy of it is turned away', async () => {
    const store = redisWriteQueue(db.redis, { prefix: 'paused:', commandTimeoutMs: 100 });
    const admin = new Redis(db.server.port, '127.0.0.1');
    try {
      await admin.call('CLIENT', 'PAUSE', '400'); // Redis holds every other client's commands for 400 ms
      const item = { id: 'w1', key: 'k', payload: { n: 1 }, queuedAt: 0 };
      await expect(store.push(item)).rejects.toBeInstanceOf(StoreUnavailableError);
      await new Promise((r) => setTimeout(r, 500)); // the held push lands, then its cancel
      expect(await db.redis.llen('paused:order')).toBe(0);
      expect(await db.redis.hlen('paused:items')).toBe(0);
      await expect(store.push(item)).rejects.toThrow(/cancelled/);
      expect(await db.redis.llen('paused:order')).toBe(0);
      // any other write is queued as usual
      await store.push({ ...item, id: 'w2' });
      expect((await store.peek(10)).map((w) => w.id)).toEqual(['w2']);
    } finally {
      admin.disconnect();
    }
  });

  it('while the client is not connected nothing is sent: a refused write never lands when Redis is back', async () => {
    const store = redisWriteQueue(db.redis, { prefix: 'down:', commandTimeoutMs: 150 });
    await db.server.stop();
    for (let i = 0; i < 50 && db.redis.status === 'ready'; i++) await new Promise((r) => setTimeout(r, 10));
    expect(db.redis.status).not.toBe('ready');
    await expect(store.push({ id: 'd1', key: 'k', payload: 1, queuedAt: 0 })).rejects.toThrow(/not connected/);
    await db.server.start();
    for (let i = 0; i < 200 && db.redis.status !== 'ready'; i++) await new Promise((r) => setTimeout(r, 25));
    await new Promise((r) => setTimeout(r, 100));
    expect(await db.redis.llen('down:order')).toBe(0);
    // and once connected it queues again
    await store.push({ id: 'd2', key: 'k', payload: 2, queuedAt: 0 });
    expect((await store.peek(10)).map((w) => w.id)).toEqual(['d2']);
  });

  it('peek answers at most limit writes (at least one), oldest first; ack removes the one named', async () => {
    const store = redisWriteQueue(db.redis, { prefix: 'peek:' });
    for (const id of ['a', 'b', 'c']) await store.push(item(id));
    expect((await store.peek(2)).map((w) => w.id)).toEqual(['a', 'b']);
    expect((await store.peek(0)).map((w) => w.id)).toEqual(['a']);
    expect(await store.peek(10)).toEqual([item('a'), item('b'), item('c')]);
    await store.ack('b');
    expect(await db.redis.lrange('peek:order', 0, -1)).toEqual(['a', 'c']);
    expect(await db.redis.hkeys('peek:items')).toEqual(expect.arrayContaining(['a', 'c']));
    expect(await db.redis.hlen('peek:items')).toBe(2);
  });

  it('a push of a write whose id was cancelled is refused with StoreUnavailableError of redisWriteQueue, and not queued', async () => {
    const store = redisWriteQueue(db.redis, { prefix: 'refused:' });
    await db.redis.set('refused:cancelled:w1', '1');
    const error = await rejection(store.push(item('w1')));
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(error).toMatchObject({ policy: 'redisWriteQueue', message: 'store push refused (redisWriteQueue): write w1 was cancelled' });
    expect(await db.redis.exists('refused:order', 'refused:items')).toBe(0);
  });

  it('an error from Redis rejects with StoreUnavailableError naming redisWriteQueue and the operation', async () => {
    const store = redisWriteQueue(db.redis, { prefix: 'wrongtype:' });
    await db.redis.set('wrongtype:order', 'not a list');
    const calls: [string, () => Promise<unknown>][] = [
      ['push', () => store.push(item('w1'))],
      ['peek', () => store.peek(1)],
      ['ack', () => store.ack('w1')],
    ];
    for (const [what, call] of calls) {
      const error = await rejection(call());
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect((error as StoreUnavailableError).policy).toBe('redisWriteQueue');
      expect((error as Error).message).toMatch(new RegExp(`^store ${what} failed \\(redisWriteQueue\\): WRONGTYPE Operation against a key holding the wrong kind of value`));
    }
  });

  it('while the client is not connected each operation waits commandTimeoutMs for it, then rejects naming it, leaving no listener behind', async () => {
    const closed = new Redis(db.server.port, '127.0.0.1', { lazyConnect: true });
    closed.disconnect();
    expect(closed.status).toBe('end');
    const clock = new TestClock(1_000_000);
    const store = redisWriteQueue(closed, { prefix: 'closed:', commandTimeoutMs: 300, clock });
    const listeners = closed.listenerCount('ready');
    const calls: [string, () => Promise<unknown>][] = [
      ['push', () => store.push(item('c1'))],
      ['peek', () => store.peek(10)],
      ['ack', () => store.ack('c1')],
    ];
    for (const [what, call] of calls) {
      let settled = false;
      const error = rejection(call()).finally(() => (settled = true));
      await clock.advance(299);
      expect(settled).toBe(false);
      expect(closed.listenerCount('ready')).toBe(listeners + 1);
      await clock.advance(1);
      const e = await error;
      expect(e).toBeInstanceOf(StoreUnavailableError);
      expect(e).toMatchObject({ policy: 'redisWriteQueue', message: `store ${what} failed (redisWriteQueue): Redis is not connected (end)` });
      expect(closed.listenerCount('ready')).toBe(listeners);
    }
    expect(await db.redis.exists('closed:order', 'closed:items')).toBe(0);
  });

  it('a lazyConnect client that has not connected yet is not waited for: its first command connects it', async () => {
    const lazy = new Redis(db.server.port, '127.0.0.1', { lazyConnect: true });
    try {
      expect(lazy.status).toBe('wait');
      // on a TestClock nothing would end a wait for the connection
      const store = redisWriteQueue(lazy, { prefix: 'lazy:', clock: new TestClock(1_000_000) });
      await store.push(item('l1'));
      expect(await db.redis.lrange('lazy:order', 0, -1)).toEqual(['l1']);
    } finally {
      lazy.disconnect();
    }
  });

  it('the time a push waited for the connection counts against its commandTimeoutMs', async () => {
    const late = new Redis(db.server.port, '127.0.0.1', { lazyConnect: true });
    late.disconnect();
    const admin = new Redis(db.server.port, '127.0.0.1');
    const clock = new TestClock(1_000_000);
    const store = redisWriteQueue(late, { prefix: 'late:', commandTimeoutMs: 1_000, clock });
    try {
      let settled = false;
      const error = rejection(store.push(item('t1'))).finally(() => (settled = true));
      await clock.advance(300);
      // Redis holds writes (scripts included) from now on, so the push, once sent, goes unanswered
      await admin.call('CLIENT', 'PAUSE', '10000', 'WRITE');
      await late.connect();
      await clock.advance(699);
      expect(settled).toBe(false);
      await clock.advance(1);
      const e = await error;
      expect(e).toBeInstanceOf(StoreUnavailableError);
      expect(e).toMatchObject({ policy: 'redisWriteQueue', message: 'store push did not answer within 700 ms (redisWriteQueue)' });
    } finally {
      await admin.call('CLIENT', 'UNPAUSE');
      admin.disconnect();
      late.disconnect();
    }
  });

  it('a client that does not report its connection state is trusted: its commands are sent at once', async () => {
    // An adapter exposing only the two methods breakwater needs, on the real client
    const adapter: RedisClient = {
      evalsha: (sha, n, ...args) => db.redis.evalsha(sha, n, ...args),
      eval: (script, n, ...args) => db.redis.eval(script, n, ...args),
    };
    const store = redisWriteQueue(adapter, { prefix: 'adapter:' });
    await store.push(item('a1'));
    await store.push(item('a2'));
    expect((await store.peek(10)).map((w) => w.id)).toEqual(['a1', 'a2']);
    await store.ack('a1');
    expect(await db.redis.lrange('adapter:order', 0, -1)).toEqual(['a2']);
  });

  it('a client reporting only part of a connection state (status, once, removeListener) is not watched: its commands are sent', async () => {
    // a client to a closed port that fails a command at once instead of queueing it
    const dead = new Redis(await freePort(), '127.0.0.1', { enableOfflineQueue: false, retryStrategy: () => 50 });
    dead.on('error', () => undefined);
    const methods = { evalsha: dead.evalsha.bind(dead), eval: dead.eval.bind(dead) };
    const withParts = (parts: object): RedisClient => Object.defineProperties({ ...methods }, Object.getOwnPropertyDescriptors(parts));
    const once = dead.once.bind(dead);
    const removeListener = dead.removeListener.bind(dead);
    const partial: [string, RedisClient][] = [
      ['once and removeListener, no status', withParts({ once, removeListener })],
      ['status and removeListener, no once', withParts({ get status() { return dead.status; }, removeListener })],
      ['status and once, no removeListener', withParts({ get status() { return dead.status; }, once })],
    ];
    try {
      expect(dead.status).not.toBe('ready');
      for (const [name, client] of partial) {
        const clock = new TestClock(1_000_000);
        const error = rejection(redisWriteQueue(client, { prefix: 'partial:', commandTimeoutMs: 500, clock }).push(item('p1')));
        await clock.advance(500);
        const e = await error;
        expect(e, name).toBeInstanceOf(StoreUnavailableError);
        expect((e as Error).message, name).toBe("store push failed (redisWriteQueue): Stream isn't writeable and enableOfflineQueue options is false");
      }
    } finally {
      dead.disconnect();
    }
  });
});
