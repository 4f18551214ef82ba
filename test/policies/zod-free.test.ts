/**
 * The policies check their options with the plain rules of lib/options.ts:
 * nothing a policy module other than its schema.ts, the builder or the rules import,
 * directly or through other modules of this repository, imports zod. The zod
 * schemas live in each policy's schema.ts, which only the config layer and
 * the schema tests import.
 */
import { readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importGraph } from '../helpers/imports.js';

const root = resolve(import.meta.dirname, '../..');
/** Every module reachable from `entry` (a source path) by relative imports, type-only ones included, with the packages each imports. */
const graph = (entry: string) => importGraph(resolve(root, entry), (path) => path.replace(/\.js$/, '.ts'));

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
