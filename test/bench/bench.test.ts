import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

// A smoke run of `npm run bench` with tiny counts (BENCH_QUICK=1), so the
// harness cannot rot. It asserts that every figure is measured, never a timing.
// Needs the build in dist/ (npm test builds first).

const dir = mkdtempSync(join(tmpdir(), 'breakwater-bench-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Row {
  figure: string;
  unit: string;
  ours: number;
  theirs: number;
  ratio: number;
  target: string;
  met: boolean;
}

function runBench(out: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--expose-gc', 'bench/index.mjs'],
      { env: { ...process.env, BENCH_QUICK: '1', BENCH_OUT: out }, maxBuffer: 1 << 22 },
      (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout)),
    );
  });
}

describe('bench harness (smoke, tiny counts)', () => {
  it('measures every figure of the quality table and writes the results', { timeout: 180_000 }, async () => {
    const out = join(dir, 'results.json');
    const stdout = await runBench(out);
    const results = JSON.parse(readFileSync(out, 'utf8')) as { quick: boolean; figures: Row[]; machine: { node: string } };
    expect(results.quick).toBe(true);
    expect(results.machine.node).toBe(process.version);
    const names = results.figures.map((r) => r.figure).join('\n');
    for (const figure of [
      'canonical chain, overhead',
      'canonical chain, total',
      'permit path, sreBreaker',
      'permit path, circuitBreaker(errorRatio)',
      'execute overhead, sreBreaker',
      'execute overhead, circuitBreaker(errorRatio)',
      'timeout alone',
      'concurrent timeouts, time to start',
      'concurrent timeouts, heap',
      'memory per breaker, circuitBreaker(errorRatio)',
      'memory per breaker, sreBreaker',
      'events',
    ]) {
      expect(names).toContain(figure);
    }
    for (const r of results.figures) {
      expect(Number.isFinite(r.ours), r.figure).toBe(true);
      expect(Number.isFinite(r.theirs) && r.theirs !== 0, r.figure).toBe(true);
      expect(typeof r.met).toBe('boolean');
      expect(stdout).toContain(r.figure);
    }
  });
});
