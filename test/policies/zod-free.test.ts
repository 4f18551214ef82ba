/**
 * The policies check their options with the plain rules of lib/options.ts:
 * nothing a policy module other than its schema.ts, the builder or the rules import,
 * directly or through other modules of this repository, imports zod. The zod
 * schemas live in each policy's schema.ts, which only the config layer and
 * the schema tests import.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const specifier = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+'([^']+)'|import\('([^']+)'\)/g;

/** Every module reachable from `entry` by relative imports (type-only ones included), with the packages each imports. */
function graph(entry: string): Map<string, string[]> {
  const seen = new Map<string, string[]>();
  const todo = [resolve(root, entry)];
  while (todo.length > 0) {
    const file = todo.pop()!;
    if (seen.has(file)) continue;
    const packages: string[] = [];
    seen.set(file, packages);
    for (const m of readFileSync(file, 'utf8').matchAll(specifier)) {
      const spec = m[1] ?? m[2]!;
      if (spec.startsWith('.')) todo.push(resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
      else packages.push(spec);
    }
  }
  return seen;
}

const entries = [
  'lib/options.ts',
  'api/builder.ts',
  ...readdirSync(join(root, 'policies')).flatMap((name) =>
    readdirSync(join(root, 'policies', name))
      .filter((file) => file.endsWith('.ts') && file !== 'schema.ts')
      .map((file) => `policies/${name}/${file}`),
  ),
];

describe('policy option checks', () => {
  it.each(entries)('%s loads no zod', (entry) => {
    const importers = [...graph(entry)].filter(([, packages]) => packages.some((p) => p === 'zod' || p.startsWith('zod/'))).map(([file]) => relative(root, file));
    expect(importers).toEqual([]);
  });

  it('sees a zod import where there is one (the walk is not blind)', () => {
    const importers = [...graph('policies/timeout/schema.ts')].filter(([, packages]) => packages.includes('zod')).map(([file]) => relative(root, file));
    expect(importers).toContain('policies/timeout/schema.ts');
    expect(importers).toContain('lib/schemas.ts');
  });
});
