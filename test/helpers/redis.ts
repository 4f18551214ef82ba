import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMainThread } from 'node:worker_threads';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, it } from 'vitest';

/** The server binary: `redis-server` from PATH, or `BREAKWATER_REDIS_SERVER`. */
const REDIS_SERVER = process.env.BREAKWATER_REDIS_SERVER ?? 'redis-server';

/** True when the redis-server binary runs. */
export const redisAvailable: boolean = spawnSync(REDIS_SERVER, ['--version'], { stdio: 'ignore' }).status === 0;

/** Set in CI: a missing redis-server is a failure, not a skip. */
export const redisRequired: boolean = process.env.BREAKWATER_REQUIRE_REDIS === '1';

const NOTICE = 'breakwater: Redis tests skipped: redis-server is not on PATH (apt-get install redis-server)';

/** Prints the skip notice once per vitest run, however many test files skip. */
function noticeOnce(): void {
  // Workers of one run share the vitest process: threads run in it, forks are its children.
  const runId = isMainThread ? process.ppid : process.pid;
  try {
    closeSync(openSync(join(tmpdir(), `breakwater-redis-notice-${runId}`), 'wx'));
  } catch {
    return;
  }
  process.stderr.write(`${NOTICE}\n`);
}

/**
 * `describe` for tests that need a real redis-server: skipped (with one
 * line saying how to install it) where there is none, and a failure instead
 * when `BREAKWATER_REQUIRE_REDIS=1`.
 */
export function describeRedis(name: string, body: () => void): void {
  if (!redisAvailable && redisRequired) {
    describe(name, () => {
      it('needs redis-server (BREAKWATER_REQUIRE_REDIS=1)', () => {
        throw new Error('redis-server is not on PATH and BREAKWATER_REQUIRE_REDIS=1: apt-get install redis-server');
      });
    });
    return;
  }
  if (!redisAvailable) noticeOnce();
  describe.skipIf(!redisAvailable)(name, body);
}

/** A free TCP port on loopback (free when asked; the server binds it right after). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = createConnection({ port, host: '127.0.0.1' });
    let reply = '';
    sock.setTimeout(500, () => sock.destroy());
    sock.on('connect', () => sock.write('PING\r\n'));
    sock.on('data', (d) => {
      reply += d.toString();
      if (reply.includes('\r\n')) sock.end();
    });
    sock.on('close', () => resolve(reply.startsWith('+PONG')));
    sock.on('error', () => resolve(false));
  });
}

/** A redis-server of one test file, on loopback. */
export interface RedisServer {
  readonly port: number;
  readonly url: string;
  /** Starts it (again, on the same port and data directory). */
  start(): Promise<void>;
  /** Stops it (SIGTERM: Redis syncs its append-only file and exits). */
  stop(): Promise<void>;
  /** Kills it with SIGKILL (a crash: no shutdown work; with appendfsync always, acknowledged writes survive). */
  kill(): Promise<void>;
  /** Stops it and removes its data directory. */
  dispose(): Promise<void>;
}

/**
 * Starts a real `redis-server` from PATH on a free loopback port, with no
 * snapshots; `appendonly: true` makes it durable across `stop()`/`start()`.
 *
 * @example
 * ```ts
 * let server: RedisServer;
 * beforeAll(async () => { server = await startRedis({ appendonly: true }); });
 * afterAll(() => server.dispose());
 * ```
 */
export async function startRedis(options: { appendonly?: boolean } = {}): Promise<RedisServer> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'breakwater-redis-'));
  let proc: ChildProcess | undefined;
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--dir', dir, '--daemonize', 'no'];
  args.push('--appendonly', options.appendonly ? 'yes' : 'no', '--appendfsync', 'always', '--loglevel', 'warning');

  const server: RedisServer = {
    port,
    url: `redis://127.0.0.1:${port}`,
    async start() {
      if (proc !== undefined) return;
      const p = spawn(REDIS_SERVER, args, { stdio: ['ignore', 'ignore', 'pipe'] });
      proc = p;
      let stderr = '';
      p.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
      p.on('exit', () => {
        if (proc === p) proc = undefined;
      });
      for (let i = 0; i < 100; i++) {
        if (await ping(port)) return;
        if (proc === undefined) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`redis-server did not start on port ${port}: ${stderr}`);
    },
    async stop() {
      const p = proc;
      if (p === undefined) return;
      proc = undefined;
      await new Promise<void>((resolve) => {
        p.once('exit', () => resolve());
        p.kill('SIGTERM');
      });
    },
    async kill() {
      const p = proc;
      if (p === undefined) return;
      proc = undefined;
      await new Promise<void>((resolve) => {
        p.once('exit', () => resolve());
        p.kill('SIGKILL');
      });
    },
    async dispose() {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await server.start();
  return server;
}

/** A redis-server and an ioredis client on it, for the tests of one `describe` block. */
export interface RedisFixture {
  readonly server: RedisServer;
  readonly redis: Redis;
  /** Waits (briefly, in real time) until the client is connected again after a restart. */
  ready(): Promise<void>;
}

/**
 * Starts a redis-server (see {@link startRedis}) and a client on it before
 * the enclosing block's tests, and stops both after them. With `retryMs` the
 * client reconnects every `retryMs` forever and queues commands while away,
 * so only breakwater's own deadlines end a call (the fault tests).
 *
 * @example
 * ```ts
 * describeRedis('redisStore', () => {
 *   const db = useRedis();
 *   it('claims', async () => { await redisStore(db.redis).claim('k', 1_000, 60_000); });
 * });
 * ```
 */
export function useRedis(options: { appendonly?: boolean; retryMs?: number } = {}): RedisFixture {
  let server: RedisServer | undefined;
  let redis: Redis | undefined;
  const { retryMs } = options;
  beforeAll(async () => {
    server = await startRedis({ appendonly: options.appendonly });
    redis = new Redis(server.port, '127.0.0.1', retryMs === undefined ? {} : { retryStrategy: () => retryMs, maxRetriesPerRequest: null });
    redis.on('error', () => undefined);
  });
  afterAll(async () => {
    redis?.disconnect();
    await server?.dispose();
  });
  return {
    get server() {
      return server!;
    },
    get redis() {
      return redis!;
    },
    async ready() {
      for (let i = 0; i < 200 && redis!.status !== 'ready'; i++) await new Promise((r) => setTimeout(r, 25));
      if (redis!.status !== 'ready') throw new Error(`ioredis did not reconnect (status ${redis!.status})`);
    },
  };
}
