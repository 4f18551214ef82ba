import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importGraph } from '../helpers/imports.js';

// The `breakwater/config` entry of the built package (run `npm run build` first; `npm test` does): only it loads
// zod, and the classes it shares with the root are the root's own, in the ESM and the CommonJS builds alike.
const root = resolve(import.meta.dirname, '../..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, unknown> };

/** The packages the ES modules reachable from `entry` import (relative imports followed). */
function bareImports(entry: string): string[] {
  return [...new Set([...importGraph(join(root, entry)).values()].flat())].sort();
}

/** Runs `code` in a fresh Node process in the package root; returns its standard output. */
function node(code: string, type: 'module' | 'commonjs'): string {
  const r = spawnSync(process.execPath, [type === 'module' ? '--input-type=module' : '--input-type=commonjs', '-e', code], { cwd: root, encoding: 'utf8' });
  expect(r.stderr).toBe('');
  return r.stdout.trim();
}

describe('breakwater/config', () => {
  it('is an entry of the package, for import, require and bundlers', () => {
    expect(Object.keys(pkg.exports)).toContain('./config');
    expect(pkg.exports['./config']).toMatchObject({
      module: { default: './dist/module/api/config.js' },
      import: { default: './dist/config.js' },
      require: { default: './dist/config.cjs' },
    });
  });

  it('the root imports no zod: only the config entry does', () => {
    expect(bareImports('dist/index.js')).toEqual(['rxjs']);
    expect(bareImports('dist/config.js')).toContain('zod');
  });

  it('the root loads no zod under require either, and the config entry does', () => {
    const loaded = (entry: string) =>
      node(`require(${JSON.stringify(entry)}); console.log(Object.keys(require.cache).some((f) => f.includes('/node_modules/zod/')))`, 'commonjs');
    expect(loaded('./dist/index.cjs')).toBe('false');
    expect(loaded('./dist/config.cjs')).toBe('true');
  });

  const refusal = `fromConfig({ policies: [{ type: 'timeout', ms: -1 }] })`;

  it('a ConfigError thrown by the config entry is the root ConfigError (ESM)', () => {
    const out = node(
      `import { ConfigError, ResilienceError, isConfigError } from './dist/index.js';
       import { fromConfig, ConfigError as Again } from './dist/config.js';
       try { ${refusal}; } catch (e) { console.log(e instanceof ConfigError, e instanceof ResilienceError, isConfigError(e), Again === ConfigError, e.issues[0].path); }`,
      'module',
    );
    expect(out).toBe('true true true true policies[0].ms');
  });

  it('a ConfigError thrown by the config entry is the root ConfigError (CommonJS)', () => {
    const out = node(
      `const { ConfigError, ResilienceError, isConfigError } = require('./dist/index.cjs');
       const { fromConfig, ConfigError: Again } = require('./dist/config.cjs');
       try { ${refusal}; } catch (e) { console.log(e instanceof ConfigError, e instanceof ResilienceError, isConfigError(e), Again === ConfigError, e.issues[0].path); }`,
      'commonjs',
    );
    expect(out).toBe('true true true true policies[0].ms');
  });

  it('a pipeline built from config is the root ConfigPipeline, and runs the root policies', () => {
    const out = node(
      `import { ConfigPipeline, TimeoutPolicy } from './dist/index.js';
       import { fromConfig } from './dist/config.js';
       const p = fromConfig({ policies: [{ type: 'timeout', ms: 50 }] });
       console.log(p instanceof ConfigPipeline, p.pipeline.policies[0] instanceof TimeoutPolicy);
       console.log(await p.execute(async () => 'ok'));`,
      'module',
    );
    expect(out).toBe('true true\nok');
  });
});
