import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
let project: string;

/** Runs `code` in a child node process inside the temp project; returns its stdout. */
function run(code: string, type: 'module' | 'commonjs' = 'module'): string {
  return execFileSync(process.execPath, [`--input-type=${type}`, '-e', code], { cwd: project, encoding: 'utf8' }).trim();
}

describe('the packed package with no optional peer installed', () => {
  beforeAll(() => {
    if (!existsSync(join(root, 'dist/index.js'))) execFileSync('npx', ['tsup'], { cwd: root, stdio: 'ignore' });
    project = mkdtempSync(join(tmpdir(), 'breakwater-peers-'));
    // npm pack: exactly the files a user gets
    const out = execFileSync('npm', ['pack', '--silent', '--pack-destination', project], { cwd: root, encoding: 'utf8' }).trim().split('\n');
    const tarball = join(project, out[out.length - 1]!);
    const modules = join(project, 'node_modules');
    mkdirSync(join(modules, 'breakwater'), { recursive: true });
    execFileSync('tar', ['-xzf', tarball, '-C', join(modules, 'breakwater'), '--strip-components=1']);
    // only the runtime dependencies (and rxjs's own, tslib)
    for (const dep of ['rxjs', 'zod', 'tslib']) cpSync(join(root, 'node_modules', dep), join(modules, dep), { recursive: true });
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  }, 120_000);

  afterAll(() => {
    if (project) rmSync(project, { recursive: true, force: true });
  });

  it('has none of the optional peers', () => {
    expect(readdirSync(join(project, 'node_modules')).sort()).toEqual(['breakwater', 'rxjs', 'tslib', 'zod']);
  });

  it('imports and runs the main entry as ESM and CJS', () => {
    const esm = run(`
      import { policy, logEvents, resilientFetch, HttpStatusError, parseRetryAfter } from 'breakwater';
      const lines = [];
      const p = policy().retry({ maxAttempts: 2, backoff: () => 0 });
      logEvents(p, { info: (o, m) => lines.push(m), warn() {}, error() {} }, { rateLimitMs: 0 });
      let n = 0;
      const v = await p.execute(() => { if (n++ === 0) throw new Error('x'); return 'ok'; });
      console.log(v, lines.length, typeof resilientFetch, typeof HttpStatusError, parseRetryAfter('2', 0));
    `);
    expect(esm).toBe('ok 1 function function 2000');
    const cjs = run(`const b = require('breakwater'); console.log(typeof b.policy, typeof b.logEvents, typeof b.resilientFetch);`, 'commonjs');
    expect(cjs).toBe('function function function');
  });

  it('imports breakwater/http, which needs neither Express nor Fastify', () => {
    expect(run(`import { protectHandler, protectExpress, protectFastify } from 'breakwater/http'; console.log(typeof protectHandler, typeof protectExpress, typeof protectFastify);`)).toBe(
      'function function function',
    );
  });

  it('fails to load the Prometheus, OpenTelemetry and gRPC entries naming the missing peer', () => {
    for (const [entry, peer] of [
      ['prometheus', 'prom-client'],
      ['otel', '@opentelemetry/api'],
      ['grpc', '@grpc/grpc-js'],
    ] as const) {
      const msg = run(`try { await import('breakwater/${entry}'); console.log('loaded'); } catch (e) { console.log(e.code, e.message); }`);
      expect(msg).toContain('ERR_MODULE_NOT_FOUND');
      expect(msg).toContain(peer);
    }
  });
});
