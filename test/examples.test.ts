import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

describe('examples/', () => {
  it('every example runs against its own local servers and exits 0', () => {
    // npm test builds first (pretest), so the examples import the built package by its name
    const r = spawnSync(process.execPath, ['examples/run-all.mjs'], { encoding: 'utf8', timeout: 120_000 });
    expect(r.stdout).toMatch(/\n(\d+) passed, 0 failed\n?$/);
    expect(r.stdout).toContain('ok   express-breaker.mjs');
    expect(r.stdout).toContain('ok   grpc.mjs');
    expect(r.stdout).toContain('ok   fetch-standard.mjs');
    expect(r.stdout).toContain('ok   yaml-hot-reload.mjs');
    expect(r.stdout).toContain('ok   tracing.mjs');
    expect(r.status).toBe(0);
  }, 150_000);
});
