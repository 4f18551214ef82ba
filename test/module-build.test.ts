import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';

// The built package's `module` condition (dist/module/, one ES module per source file, `sideEffects: false`): a
// bundler keeps only what an app imports. Bundled as an app would: esbuild, browser platform, from a project whose
// node_modules links breakwater to this repository (run `npm run build` first; `npm test` does).
const root = resolve(import.meta.dirname, '..');
const dir = mkdtempSync(join(tmpdir(), 'breakwater-module-'));
mkdirSync(join(dir, 'node_modules'));
symlinkSync(root, join(dir, 'node_modules', 'breakwater'), 'dir');
writeFileSync(join(dir, 'package.json'), '{ "private": true, "type": "module" }\n');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The files of the package (through the link: real paths) and of its dependencies that a bundle of `source` keeps. */
async function kept(name: string, source: string): Promise<string[]> {
  const entry = join(dir, `${name}.mjs`);
  writeFileSync(entry, source);
  const result = await build({ entryPoints: [entry], bundle: true, minify: true, platform: 'browser', format: 'esm', write: false, metafile: true, logLevel: 'silent', absWorkingDir: dir });
  return Object.keys(result.metafile.outputs[Object.keys(result.metafile.outputs)[0]!]!.inputs).filter((f) => f.includes('/dist/module/') || f.includes('node_modules/'));
}

describe('the module build tree-shakes', () => {
  it('resolves `breakwater` to one module per source file', async () => {
    const files = await kept('errors', `export { isTimeoutError } from 'breakwater';\n`);
    expect(files.some((f) => f.endsWith('/dist/module/lib/errors.js'))).toBe(true);
    expect(files.filter((f) => /\/dist\/(index|chunk-)/.test(f))).toEqual([]);
  });

  it('keeps no policy, no zod and no rxjs for an error guard alone', async () => {
    const files = await kept('guard', `export { isTimeoutError } from 'breakwater';\n`);
    expect(files.filter((f) => /\/(policies|config|integrations)\/|node_modules\/(zod|rxjs)\//.test(f))).toEqual([]);
  });

  it('keeps no other policy for one policy', async () => {
    const files = await kept('timeout', `import { timeout } from 'breakwater';\nexport const t = timeout(100);\n`);
    expect(files.some((f) => f.includes('/policies/timeout/'))).toBe(true);
    expect(files.filter((f) => /\/policies\/(?!timeout\/)|\/config\/|\/integrations\//.test(f))).toEqual([]);
  });
});

describe('the shipped JavaScript', () => {
  const files = (readdirSync(join(root, 'dist'), { recursive: true }) as string[]).filter((f) => /\.c?js$/.test(f)).map((f) => join(root, 'dist', f));

  it('leaves the doc comments to the declaration files, and keeps the bundler annotations', () => {
    expect(files.filter((f) => /^[ \t]*\/\*\*(?!.*@__)/m.test(readFileSync(f, 'utf8')))).toEqual([]);
    expect(readFileSync(join(root, 'dist/module/policies/retry/options.js'), 'utf8')).toContain('/* @__PURE__ */');
  });

  it('imports no module of the per-module build that is not there (the empty ones of types only are left out)', () => {
    const missing: string[] = [];
    for (const file of files.filter((f) => f.includes('/dist/module/'))) {
      for (const [, spec] of readFileSync(file, 'utf8').matchAll(/(?:import|export)\s*(?:[^'";]*?\sfrom\s*)?["'](\.[^"']+)["']/g)) {
        if (!existsSync(resolve(dirname(file), spec!))) missing.push(`${file}: ${spec}`);
      }
    }
    expect(missing).toEqual([]);
    expect(existsSync(join(root, 'dist/module/policies/retry/events.js'))).toBe(false);
  });
});

describe('the option rules', () => {
  it('are pure module-level code: a module of rules imported for nothing keeps none of them', async () => {
    // A copy outside the package, so that its `sideEffects: false` does not drop the whole module.
    const copy = join(dir, 'copy');
    cpSync(join(root, 'dist/module'), copy, { recursive: true });
    // The root's rules (the server integrations check their options with zod, in their own entries).
    const modules = (readdirSync(copy, { recursive: true }) as string[]).filter((f) => /^(lib|policies\/[^/]+|integrations\/log|config\/write-behind)\/options\.js$/.test(f));
    expect(modules.length).toBeGreaterThan(15);
    const kept: string[] = [];
    for (const module of modules) {
      const result = await build({
        stdin: { contents: `import './${module}';`, resolveDir: copy },
        bundle: true,
        minify: true,
        format: 'esm',
        write: false,
        logLevel: 'silent',
        external: ['rxjs', 'zod'],
      });
      // Every rule's message says what it expected; the error base class, kept for its computed brand getter, does not.
      if (result.outputFiles[0]!.text.includes('expected')) kept.push(module);
    }
    expect(kept).toEqual([]);
  });
});
