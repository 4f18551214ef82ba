import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// docs/observability.md shows the trace examples/tracing.mjs prints (local servers on loopback, real time, about 1 s).
describe('the trace in docs/observability.md', () => {
  it('is what examples/tracing.mjs prints', () => {
    const page = readFileSync('docs/observability.md', 'utf8');
    const block = /<!-- trace-example:start -->\n```text\n([\s\S]*?)\n```\n<!-- trace-example:end -->/.exec(page);
    expect(block).not.toBeNull();
    // npm test builds first (pretest): the example imports the built package by its name
    const r = spawnSync(process.execPath, ['examples/tracing.mjs'], { encoding: 'utf8', timeout: 60_000 });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout.trimEnd()).toBe(block![1]);
  }, 70_000);
});
