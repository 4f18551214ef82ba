import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, expect, it } from 'vitest';
import { idempotent, type PolicyEvent } from '../../../api/index.js';
import { redisStore } from '../../../integrations/redis/index.js';
import { describeRedis, useRedis } from '../../helpers/redis.js';

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
const built = fileURLToPath(new URL('../../../dist/redis.js', import.meta.url));

interface Child {
  proc: ChildProcess;
  /** Resolves with the child's last stdout line parsed as JSON once it exits. */
  result: Promise<unknown>;
  /** Resolves when the child prints `line`. */
  printed(line: string): Promise<void>;
}

function runNode(script: string, env: Record<string, string | number>): Child {
  const proc = spawn(process.execPath, [fixture(script)], {
    env: { ...process.env, ...Object.fromEntries(Object.entries(env).map(([k, v]) => [k, String(v)])) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const waiters: [string, () => void][] = [];
  proc.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
    for (const [line, resolve] of waiters) if (out.includes(`${line}\n`)) resolve();
  });
  proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const result = new Promise<unknown>((resolve, reject) => {
    proc.on('exit', (code, signal) => {
      if (code !== 0) return reject(new Error(`${script} exited with ${code ?? signal}: ${err}`));
      const lines = out.trim().split('\n');
      resolve(JSON.parse(lines[lines.length - 1]!));
    });
  });
  return {
    proc,
    result,
    printed: (line) => new Promise<void>((resolve) => (out.includes(`${line}\n`) ? resolve() : waiters.push([line, resolve]))),
  };
}

describeRedis('idempotent and rateLimiter across processes on a real Redis', () => {
  beforeAll(() => {
    if (!existsSync(built)) throw new Error('these tests run child processes against dist/: build first (npx tsup; npm test does)');
  });
  const db = useRedis();

  it('1,000 concurrent same-key calls in two processes run the operation exactly once', async () => {
    const env = { PORT: db.server.port, KEY: 'pay-1', CALLS: 500, INSTANCES: 25, HOLD_MS: 200, START_AT: Date.now() + 700 };
    const [a, b] = await Promise.all([runNode('idempotent-worker.mjs', env).result, runNode('idempotent-worker.mjs', env).result]);
    expect(await db.redis.get('runs:pay-1')).toBe('1');
    const ra = a as { values: string[]; errors: string[] };
    const rb = b as { values: string[]; errors: string[] };
    expect(ra.errors).toEqual([]);
    expect(rb.errors).toEqual([]);
    // every one of the 1,000 callers got the one run's result
    expect(ra.values).toHaveLength(1);
    expect(rb.values).toEqual(ra.values);
    expect(JSON.parse(ra.values[0]!)).toMatchObject({ run: 1 });
  });

  it('a claimant killed with SIGKILL is taken over once after its lease; nobody gets a result from its run', async () => {
    const leaseMs = 400;
    const spawnedAt = Date.now();
    const claimant = runNode('idempotent-worker.mjs', { PORT: db.server.port, KEY: 'pay-2', LEASE_MS: leaseMs, MODE: 'hang' });
    claimant.result.catch(() => undefined);
    await claimant.printed('RUNNING');
    claimant.proc.kill('SIGKILL');
    await new Promise((r) => claimant.proc.once('exit', r));
    // it left a pending record behind
    expect(await db.redis.hget('proc:pay-2', 's')).toBe('p');

    const store = redisStore(db.redis, { prefix: 'proc:' });
    const callers = Array.from({ length: 6 }, () => idempotent({ store, leaseMs, pollMs: 25 }));
    const events: PolicyEvent[] = [];
    for (const c of callers) c.events$.subscribe((e) => events.push(e));
    let startedAt = 0;
    let runs = 0;
    const results = await Promise.all(
      callers.map((c) =>
        c.execute(
          async () => {
            startedAt = Date.now();
            runs++;
            await new Promise((r) => setTimeout(r, 50));
            return 'fresh';
          },
          { key: 'pay-2' },
        ),
      ),
    );
    expect(results).toEqual(Array(6).fill('fresh'));
    expect(runs).toBe(1);
    expect(events.filter((e) => e.type === 'takeover')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'claimed')).toHaveLength(0);
    // the takeover waited for the dead claimant's lease (claimed after spawnedAt)
    expect(startedAt - spawnedAt).toBeGreaterThanOrEqual(leaseMs - 20);
    expect(await db.redis.get('runs:pay-2')).toBe('1'); // the dead run's own count; ours did not INCR
    expect(await db.redis.hget('proc:pay-2', 's')).toBe('s');
  });

  it('the Redis token bucket holds rate × t + burst across two processes', async () => {
    const rate = 40;
    const burst = 10;
    const env = { PORT: db.server.port, KEY: 'two-procs', RATE: rate, BURST: burst, DURATION_MS: 1_500, START_AT: Date.now() + 700 };
    const [a, b] = (await Promise.all([runNode('bucket-worker.mjs', env).result, runNode('bucket-worker.mjs', env).result])) as {
      admitted: number;
      fallbacks: number;
      first: number;
      last: number;
    }[];
    const admitted = a!.admitted + b!.admitted;
    expect(a!.fallbacks + b!.fallbacks).toBe(0);
    // No call is made before START_AT, and each admission is seen after Redis took its token: t, from START_AT
    // to the last admission seen, covers every take (same machine clock as Redis's TIME; 1 ms for rounding).
    const t = Math.max(a!.last, b!.last) - env.START_AT + 1;
    expect(admitted).toBeLessThanOrEqual(Math.floor((rate * t) / 1000 + burst));
    expect(admitted).toBeGreaterThan(burst);
    expect(a!.admitted).toBeGreaterThan(0);
    expect(b!.admitted).toBeGreaterThan(0);
  });

  it('keyed Redis token buckets hold rate × t + burst per key across two processes, and a hammered key leaves another its own', async () => {
    const rate = 40;
    const burst = 10;
    const env = { PORT: db.server.port, PREFIX: 'keyed-procs:', RATE: rate, BURST: burst, DURATION_MS: 1_500, START_AT: Date.now() + 700, CONCURRENCY: 6, COLD_GAP_MS: 100 };
    type Tally = { admitted: number; refused: number; last: number };
    const results = (await Promise.all([runNode('keyed-bucket-worker.mjs', env).result, runNode('keyed-bucket-worker.mjs', env).result])) as {
      hot: Tally;
      cold: Tally;
      fallbacks: number;
    }[];
    expect(results.map((r) => r.fallbacks)).toEqual([0, 0]);
    // each key's bucket alone: t from START_AT to the key's last admission seen (same clock as Redis's TIME; 1 ms for rounding)
    for (const tenant of ['hot', 'cold'] as const) {
      const admitted = results[0]![tenant].admitted + results[1]![tenant].admitted;
      const t = Math.max(results[0]![tenant].last, results[1]![tenant].last) - env.START_AT + 1;
      expect(admitted, tenant).toBeLessThanOrEqual(Math.floor((rate * t) / 1000 + burst));
    }
    // the hot key was limited; the cold one, far under its own limit, never was
    expect(results[0]!.hot.refused + results[1]!.hot.refused).toBeGreaterThan(0);
    expect(results.map((r) => r.cold.refused)).toEqual([0, 0]);
    expect(results[0]!.cold.admitted + results[1]!.cold.admitted).toBeGreaterThan(2);
    // one bucket per key in Redis, under the prefix
    expect((await db.redis.keys('keyed-procs:*')).sort()).toEqual(['keyed-procs:cold', 'keyed-procs:hot']);
  });
});
