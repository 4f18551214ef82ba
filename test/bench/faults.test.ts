import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

// A smoke run of `npm run bench:faults` with a tiny schedule (1 s healthy,
// 1 s fault, 1 s after, 40 req/s), so the harness cannot rot: processes start
// and stop, the counts add up, the results are written. It asserts no
// performance figure. Needs the build in dist/ (npm test builds first).
// The harness's arithmetic (schedule, recovery, load, targets) is checked on
// hand-made counts, with expected figures worked out by hand.

const dir = mkdtempSync(join(tmpdir(), 'breakwater-faults-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const RATE = 40;
const tiny = ['--warmup', '0', '--healthy', '1', '--fault', '1', '--after', '1', '--rate', String(RATE)];

interface Shares {
  n: number;
  real: number;
  fallback: number;
  error: number;
  timeout: number;
}

interface Second {
  s: number;
  phase: string;
  a: { real: number; fallback: number; error: number; timeout: number };
  c: { received: number; failed: number };
}

interface Figures {
  healthy: Shares;
  during: Shares;
  after: Shares;
  recoveryS: number | null;
  upstreamLoad: { ratio: number };
  counts: { due: number; real: number; fallback: number; error: number; timeout: number; pending: number; serviceReceived: number; serviceAnswered: number; serviceInFlightAtStop: number };
  timeline: Second[];
}

interface Results {
  machine: { node: string };
  settings: { rate: number; variants: Record<string, string>; scenarios: Record<string, string> };
  runs: { scenario: string; variant: string; pids: Record<string, number>; figures: Figures }[];
  targets: { scenario: string; figure: string; met: Record<string, string> }[];
  processes: { role: string; pid: number }[];
}

function bench(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['bench/faults/index.mjs', ...args], { maxBuffer: 1 << 22, timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : null, stdout, stderr }),
    );
  });
}

/** Whether `pid` is a running process (a zombie, dead but not yet reaped, counts as gone). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = `/proc/${pid}/stat`;
  return !(existsSync(stat) && readFileSync(stat, 'utf8').split(') ')[1]?.startsWith('Z'));
}

async function gone(pids: number[]): Promise<number[]> {
  for (let i = 0; i < 30 && pids.some(running); i++) await new Promise((r) => setTimeout(r, 100));
  return pids.filter(running);
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

describe('bench:faults (smoke, tiny schedule)', () => {
  it('runs every process of each run, stops them all, and writes counts that add up', { timeout: 90_000 }, async () => {
    const out = join(dir, 'faults.json');
    const { code, stdout, stderr } = await bench(['--scenario', 'outage', '--variant', 'bare,canonical', ...tiny, '--out', out]);
    expect(code, stderr).toBe(0);
    const results = JSON.parse(readFileSync(out, 'utf8')) as Results;
    expect(results.machine.node).toBe(process.version);
    expect(Object.keys(results.settings.variants)).toEqual(['bare', 'canonical']);
    expect(results.runs.map((r) => `${r.scenario} ${r.variant}`)).toEqual(['outage bare', 'outage canonical']);

    // Three processes per run, each started once and none left running.
    expect(results.processes.map((p) => p.role)).toEqual(['upstream', 'service', 'generator', 'upstream', 'service', 'generator']);
    expect(new Set(results.processes.map((p) => p.pid)).size).toBe(6);
    expect(await gone(results.processes.map((p) => p.pid))).toEqual([]);

    for (const { figures: f, variant } of results.runs) {
      const c = f.counts;
      // 3 s at 40 req/s: every request due is settled exactly once, and B answered every request it got.
      expect(c.due, variant).toBe(3 * RATE);
      expect(c.pending, variant).toBe(0);
      expect(c.real + c.fallback + c.error + c.timeout, variant).toBe(c.due);
      expect(c.serviceReceived, variant).toBeLessThanOrEqual(c.due);
      expect(c.serviceAnswered + c.serviceInFlightAtStop, variant).toBe(c.serviceReceived);
      // The phases split the requests; their shares count timeouts as errors.
      expect(f.healthy.n + f.during.n + f.after.n, variant).toBe(c.due);
      for (const s of [f.healthy, f.during, f.after]) expect(s.real + s.fallback + s.error, variant).toBe(s.n);
      expect(f.healthy.timeout + f.during.timeout + f.after.timeout, variant).toBe(c.timeout);
      // The per-second timeline (by due time) holds the same requests.
      expect(f.timeline.map((t) => t.phase), variant).toEqual(['healthy', 'fault', 'after']);
      expect(sum(f.timeline.map((t) => t.a.real + t.a.fallback + t.a.error + t.a.timeout)), variant).toBe(c.due);
      expect(f.timeline[1]!.a.real + f.timeline[1]!.a.fallback + f.timeline[1]!.a.error + f.timeline[1]!.a.timeout, variant).toBe(f.during.n);
      // C was reached and answered 503 during the outage.
      expect(sum(f.timeline.map((t) => t.c.received)), variant).toBeGreaterThan(0);
      expect(sum(f.timeline.map((t) => t.c.failed)), variant).toBeGreaterThan(0);
      // With a 1 s after phase there is one recovery window: the whole phase.
      expect(f.recoveryS === 0, variant).toBe(f.after.real >= 0.95 * f.after.n);
      expect(Number.isFinite(f.upstreamLoad.ratio), variant).toBe(true);
    }

    expect(results.targets.length).toBeGreaterThan(0);
    for (const t of results.targets) for (const m of Object.values(t.met)) expect(['yes', 'NO', 'n/a']).toContain(m);
    expect(results.targets.at(-1)!.figure).toBe('errors + client timeouts seen by A');
    expect(stdout).toContain('met? canonical');
    expect(stdout).toContain('met? standard');
  });

  it('stops every process it started when interrupted mid-run', { timeout: 60_000 }, async () => {
    const child = spawn(process.execPath, ['bench/faults/index.mjs', '--scenario', 'hanging', '--variant', 'bare', '--warmup', '0', '--healthy', '20', '--after', '1', '--rate', '20', '--out', join(dir, 'never.json')], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    const pids = await new Promise<number[]>((resolve, reject) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        const m = /started \(pids upstream (\d+), service (\d+), generator (\d+)\)/.exec(stderr);
        if (m) resolve(m.slice(1).map(Number));
      });
      child.once('exit', () => reject(new Error(`bench exited before starting a run:\n${stderr}`)));
    });
    expect(pids.filter(running)).toEqual(pids);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(await gone(pids)).toEqual([]);
    expect(existsSync(join(dir, 'never.json'))).toBe(false);
  });

  it('refuses an unknown scenario or variant before starting anything', async () => {
    const scenario = await bench(['--scenario', 'meteor']);
    expect(scenario.code).not.toBe(0);
    expect(scenario.stderr).toContain('unknown scenario meteor');
    const variant = await bench(['--variant', 'polly']);
    expect(variant.code).not.toBe(0);
    expect(variant.stderr).toContain('unknown variant polly');
  });
});

/** A module of bench/faults (plain .mjs, so imported by URL and typed here by what the tests use). */
async function harness<T>(file: string): Promise<T> {
  return (await import(pathToFileURL(join(process.cwd(), 'bench/faults', file)).href)) as T;
}

interface Span {
  from: number;
  to: number;
  kind: string;
}
type ScheduleOf = (name: string, o: { warmupMs?: number; healthyMs: number; afterMs: number; faultMs?: number }) => {
  faultStart: number;
  faultEnd: number;
  totalMs: number;
  spans: Span[];
};
type Analyze = (run: unknown, settings: { rate: number; clientTimeoutMs: number }) => Figures & { recoveryS: number | null; upstreamLoad: { healthyPerS: number; faultPerS: number; ratio: number } };
interface TargetRow {
  scenario: string;
  key: string;
  values: Record<string, number | null>;
  met: Record<string, string>;
}
type TargetRows = (results: Record<string, Record<string, unknown>>) => TargetRow[];

describe('bench:faults schedule', () => {
  it('puts the fault after the warm-up and the healthy phase, and flaps 2 s down / 2 s up from its start', async () => {
    const { scheduleOf } = await harness<{ scheduleOf: ScheduleOf }>('scenarios.mjs');
    const s = scheduleOf('flapping', { warmupMs: 1_000, healthyMs: 10_000, afterMs: 10_000 });
    expect([s.faultStart, s.faultEnd, s.totalMs]).toEqual([11_000, 21_000, 31_000]);
    expect(s.spans).toEqual([
      { from: 11_000, to: 13_000, kind: 'outage' },
      { from: 15_000, to: 17_000, kind: 'outage' },
      { from: 19_000, to: 21_000, kind: 'outage' },
    ]);
    const long = scheduleOf('outage-12s', { healthyMs: 10_000, afterMs: 10_000 });
    expect([long.faultStart, long.faultEnd]).toEqual([10_000, 22_000]);
  });
});

describe('bench:faults analysis', () => {
  // 10 req/s; 1 s healthy, 1 s fault, 3 s after: requests 0-9 healthy, 10-19 fault, 20-49 after.
  // All real but the fault and the first 1.5 s after it (requests 10-34 answered by the fallback).
  function run() {
    const n = 50;
    const outcome = new Uint8Array(n).map((_, i) => (i >= 10 && i < 35 ? 2 : 1));
    const perSecond = Array.from({ length: 5 }, () => ({ p99: 1, max: 1, cpuMs: 100 }));
    const loopDelay = { p50: 1, p99: 1, max: 1, perSecond };
    const zeros = (k: number) => new Array<number>(k).fill(0);
    // C received 1 request per 100 ms when healthy, 3 during the fault, 1 after.
    const received = Array.from({ length: 60 }, (_, b) => (b < 10 ? 1 : b < 20 ? 3 : b < 50 ? 1 : 0));
    return {
      schedule: { warmupMs: 0, healthyMs: 1_000, faultMs: 1_000, afterMs: 3_000, faultStart: 1_000, faultEnd: 2_000, totalMs: 5_000, spans: [] },
      generator: { outcome, latencyMs: new Float64Array(n).fill(20), sendLagMs: new Float64Array(n), loopDelay },
      service: { counts: { received: zeros(40), real: zeros(40), fallback: zeros(40), error: zeros(40), inFlightMax: zeros(40) }, inFlightAtStop: 0, errors: {}, loopDelay },
      upstream: { bucketMs: 100, counts: { received, ok: zeros(60), failed: zeros(60), servedGone: zeros(60), queueMax: zeros(60) }, hung: 0, queuedAtStop: 0, loopDelay },
    };
  }

  it('finds the first 1 s window, stepped by 100 ms from the fault end, with >= 95 % real answers by due time', async () => {
    const { analyze } = await harness<{ analyze: Analyze }>('analyze.mjs');
    const f = analyze(run(), { rate: 10, clientTimeoutMs: 2_000 });
    // Requests 35-44 (due 3.5-4.4 s) are the first window of ten real answers: 1.5 s after the fault's end.
    expect(f.recoveryS).toBe(1.5);
    expect([f.healthy.n, f.during.n, f.after.n]).toEqual([10, 10, 30]);
    expect([f.during.real, f.after.real, f.after.fallback]).toEqual([0, 15, 15]);
    expect(f.upstreamLoad.healthyPerS).toBe(10);
    expect(f.upstreamLoad.faultPerS).toBe(30);
    expect(f.upstreamLoad.ratio).toBe(3);
  });

  it('reports no recovery when no window of the after phase has >= 95 % real answers', async () => {
    const { analyze } = await harness<{ analyze: Analyze }>('analyze.mjs');
    const r = run();
    r.generator.outcome = new Uint8Array(50).map((_, i) => (i >= 10 && i % 10 !== 0 ? 2 : 1));
    r.generator.outcome[49] = 1;
    expect(analyze(r, { rate: 10, clientTimeoutMs: 2_000 }).recoveryS).toBeNull();
  });
});

describe('bench:faults targets', () => {
  const figures = (o: { recoveryS?: number | null; after?: number; during?: number; load?: number; bad?: number }) => ({
    recoveryS: o.recoveryS === undefined ? 0 : o.recoveryS,
    recoveryLimitS: 9,
    after: { realShare: o.after ?? 1 },
    during: { realShare: o.during ?? 0.5 },
    upstreamLoad: { ratio: o.load ?? 1 },
    counts: { error: o.bad ?? 0, timeout: 0 },
  });

  it('judges the two breakwater variants against the limits and the figures of the other variants in the same run', async () => {
    const { targetRows } = await harness<{ targetRows: TargetRows }>('targets.mjs');
    const rows = targetRows({
      outage: {
        bare: figures({}),
        canonical: figures({ recoveryS: 1, load: 1.5 }),
        standard: figures({ recoveryS: 1.1, load: 1.19, after: 0.94 }),
        cockatiel: figures({ load: 1.56 }),
        opossum: figures({ load: 1.42 }),
      },
      capacity: { bare: figures({ during: 0.25 }), canonical: figures({ during: 0.25, recoveryS: 2 }), standard: figures({ during: 0.549, recoveryS: null }) },
      flapping: {
        bare: figures({ during: 0.4 }),
        canonical: figures({ during: 0.45, bad: 1 }),
        standard: figures({ during: 0.44 }),
        cockatiel: figures({ during: 0.45 }),
        opossum: figures({ during: 0.43 }),
      },
    });
    const met = Object.fromEntries(rows.map((r) => [`${r.scenario} ${r.key}`, [r.met.canonical, r.met.standard]]));
    expect(met).toEqual({
      'outage recovery': ['yes', 'NO'],
      'outage realAfter': ['yes', 'NO'],
      'outage load': ['NO', 'yes'], // canonical 1.5 is not below opossum's 1.42; standard is <= 1.2 and below both
      'capacity realDuring': ['yes', 'NO'],
      'capacity recovery': ['yes', 'NO'],
      'flapping realDuring': ['yes', 'NO'],
      'all run bad': ['NO', 'yes'],
    });
  });

  it('says n/a where a variant a target compares with was not run', async () => {
    const { targetRows } = await harness<{ targetRows: TargetRows }>('targets.mjs');
    const rows = targetRows({ outage: { canonical: figures({ load: 1 }), standard: figures({ load: 1 }), cockatiel: figures({ load: 2 }) } });
    expect(rows.find((r) => r.key === 'load')!.met).toEqual({ canonical: 'n/a', standard: 'n/a' });
    expect(rows.find((r) => r.key === 'recovery')!.met).toEqual({ canonical: 'yes', standard: 'yes' });
  });
});
