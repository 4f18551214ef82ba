import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

// A smoke run of `npm run bench:faults` with a tiny schedule (1 s healthy,
// 1 s fault, 1 s after, 40 req/s), so the harness cannot rot: processes start
// and stop, the counts add up, the results are written. It asserts no
// performance figure. Needs the build in dist/ (npm test builds first).

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
