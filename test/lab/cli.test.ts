import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { build, type Options } from 'tsup';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import labBuild from '../../lab/tsup.config.js';

// The CLI as `npm start` runs it: built by tsup (inside the project, so its packages resolve), then run by node.
describe('the lab CLI', () => {
  let dir = '';
  const cli = (...args: string[]): string => execFileSync(process.execPath, [join(dir, 'cli.js'), ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

  beforeAll(async () => {
    const cache = join(process.cwd(), 'node_modules', '.cache');
    mkdirSync(cache, { recursive: true });
    dir = mkdtempSync(join(cache, 'breakwater-lab-cli-'));
    await build({ ...(labBuild as Options), outDir: dir, config: false, silent: true });
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('documents its options in --help', () => {
    const help = cli('--help');
    for (const o of ['--scenario', '--strategy', '--seed', '--duration', '--out', '--help']) expect(help).toContain(o);
  });

  it('refuses an unknown strategy, naming the known ones', () => {
    expect(() => cli('--strategy', 'nope')).toThrow(/unknown strategy 'nope'/);
  });

  it('prints the table and writes the same report for the same seed, with or without threads', () => {
    const args = ['--scenario', 'hardOutage', '--strategy', 'baseline,standard', '--duration', '70'];
    const out = cli(...args, '--out', join(dir, 'a'));
    cli(...args, '--out', join(dir, 'b'), '--workers', '0');
    expect(out).toContain('hard outage');
    expect(out).toMatch(/│ standard\s+│/);
    expect(existsSync(join(dir, 'a', 'index.html'))).toBe(true);
    const a = readFileSync(join(dir, 'a', 'results.json'), 'utf8');
    expect(readFileSync(join(dir, 'b', 'results.json'), 'utf8')).toBe(a);
    expect(a).not.toMatch(/wall|cpu/i);
    // with threads the charts are drawn in a worker thread while the runs go on; without, after them: the same bytes
    const html = readFileSync(join(dir, 'a', 'index.html'), 'utf8');
    expect(html).toContain('<svg');
    expect(readFileSync(join(dir, 'b', 'index.html'), 'utf8')).toBe(html);
  }, 120_000);
});
