import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

// The layers of STYLE.md, checked by dependency-cruiser with .dependency-cruiser.cjs: lib/ < policies/ < config/ <
// integrations/ < api/, no import circle (type-only imports included), the product never imports lab, bench, test.
describe('the layers of the repository', () => {
  const run = (): { summary: { violations: { rule: { name: string }; from: string; to: string }[]; totalCruised: number } } =>
    JSON.parse(
      execFileSync('node_modules/.bin/depcruise', ['lib', 'policies', 'config', 'integrations', 'api', '--output-type', 'json'], {
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
      }),
    );

  it('has no violation and no circle in the product', () => {
    const { summary } = run();
    // every module of the product was read (a wrong path would cruise nothing and find nothing)
    expect(summary.totalCruised).toBeGreaterThan(140);
    expect(summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`)).toEqual([]);
  }, 120_000);
});
