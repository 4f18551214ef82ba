import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

// Static imports and re-exports (side-effect and type-only ones included, in source or minified output) and dynamic imports.
const SPECIFIER = /\b(?:import|export)\s*(?:[\w*{}\s,$]*?\s*from\s*)?["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g;

/**
 * Every module reachable from `entry` (an absolute path) by relative imports,
 * with the packages each imports by name. `toFile` maps a relative
 * specifier's resolved path to the file to read (`.js` to `.ts` for sources).
 */
export function importGraph(entry: string, toFile: (path: string) => string = (path) => path): Map<string, string[]> {
  const seen = new Map<string, string[]>();
  const todo = [entry];
  while (todo.length > 0) {
    const file = todo.pop()!;
    if (seen.has(file)) continue;
    const packages: string[] = [];
    seen.set(file, packages);
    for (const m of readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
      const spec = m[1] ?? m[2]!;
      if (spec.startsWith('.')) todo.push(toFile(resolve(dirname(file), spec)));
      else packages.push(spec);
    }
  }
  return seen;
}
