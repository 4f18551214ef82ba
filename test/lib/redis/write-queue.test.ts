import { spawn } from 'node:child_process';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { strategies } from '../../../lib/index.js';
import { redisWriteQueue } from '../../../lib/redis/index.js';
import { describeRedis, startRedis, type RedisServer } from '../../helpers/redis.js';

describeRedis('writeBehind on a Redis queue', () => {
  let server: RedisServer;
  let redis: Redis;
  beforeAll(async () => {
    server = await startRedis({ appendonly: true });
    redis = new Redis(server.port, '127.0.0.1', { retryStrategy: () => 100, maxRetriesPerRequest: null });
    redis.on('error', () => undefined);
  });
  afterAll(async () => {
    redis.disconnect();
    await server.dispose();
  });

  it('loses no queued write across a crash of the writing process and a restart of Redis', async () => {
    // A child process queues 20 writes while the target is down, then dies by SIGKILL.
    const script = `
      import { Redis } from 'ioredis';
      import { strategies } from './dist/index.js';
      import { redisWriteQueue } from './dist/redis.js';
      const redis = new Redis(${server.port}, '127.0.0.1');
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
    await server.stop();
    await server.start();
    const delivered: number[] = [];
    const w = strategies.writeBehind({
      deliver: (o: { n: number }) => void delivered.push(o.n),
      store: redisWriteQueue(redis, { prefix: 'crash:', commandTimeoutMs: 2_000 }),
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
    expect(await redis.llen('crash:order')).toBe(0);
  });
});
