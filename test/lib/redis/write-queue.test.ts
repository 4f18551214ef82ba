import { spawn } from 'node:child_process';
import { Redis } from 'ioredis';
import { expect, it } from 'vitest';
import { StoreUnavailableError, strategies } from '../../../lib/index.js';
import { redisWriteQueue } from '../../../lib/redis/index.js';
import { describeRedis, useRedis } from '../../helpers/redis.js';

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
});
