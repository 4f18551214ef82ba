import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const LAYERS = ['lib', 'policies', 'config', 'integrations', 'api'];

/**
 * Modules that have no mirrored test file yet. The list only shrinks: a module
 * that gains its test file must leave it (the test below fails otherwise), and
 * a module not in it must have its test file.
 */
const PENDING: readonly string[] = [];

/** Every module of the product: a `.ts` file under the layers, barrels (`index.ts`) aside. */
function modules(): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.ts') && !name.endsWith('.d.ts') && name !== 'index.ts') out.push(relative(ROOT, path).split('\\').join('/'));
    }
  };
  for (const layer of LAYERS) walk(join(ROOT, layer));
  return out.sort();
}

/** `test/<path>.test.ts`, or a folder `test/<path without .ts>/` holding `*.test.ts` files. */
function hasMirror(module: string): boolean {
  const base = join(ROOT, 'test', module.slice(0, -'.ts'.length));
  if (existsSync(`${base}.test.ts`)) return true;
  return existsSync(base) && statSync(base).isDirectory() && readdirSync(base).some((f) => f.endsWith('.test.ts'));
}

describe('test/ mirrors the tree', () => {
  const all = modules();

  it('finds the modules of every layer', () => {
    for (const layer of LAYERS) expect(all.some((m) => m.startsWith(`${layer}/`))).toBe(true);
    expect(all).toContain('lib/pipe.ts');
    expect(all).not.toContain('api/index.ts');
  });

  it('every module has its mirrored test file, except the pending ones', () => {
    expect(all.filter((m) => !hasMirror(m) && !PENDING.includes(m))).toEqual([]);
  });

  it('the pending list only shrinks: no module in it has gained its test file, and each still exists', () => {
    expect(PENDING.filter((m) => hasMirror(m))).toEqual([]);
    expect(PENDING.filter((m) => !all.includes(m))).toEqual([]);
  });
});
