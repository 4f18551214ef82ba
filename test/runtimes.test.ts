import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import type { BrowserContext } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';

// The built package (dist/, through package.json's entry names) runs one
// pipeline in headless Chromium (from an esbuild browser bundle), under Bun
// and under Deno (their binaries from the `bun` and `deno` devDependencies).
// A runtime that cannot start registers no test and prints one SKIP line,
// unless BREAKWATER_REQUIRE_RUNTIMES=1, which makes it a failing test.
// Needs the build in dist/ (npm test builds first).

const run = promisify(execFile);
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const required = process.env.BREAKWATER_REQUIRE_RUNTIMES === '1';
const CHROMIUM = '/usr/bin/chromium';

/**
 * What every runtime runs: timeout + retry + breaker + fallback, built with
 * pipe() and with the builder, over an operation that fails twice and then
 * answers, and over one that always fails; and an error recognised by its
 * guard. Returns what it saw.
 */
const SCENARIO = `
export async function scenario(bw) {
  const out = {};
  const chains = {
    pipe: bw.pipe(bw.timeout(1000), bw.retry({ maxAttempts: 3, backoff: () => 0 }), bw.breaker(), bw.fallback(() => 'fallback')),
    builder: bw.policy().timeout(1000).retry({ maxAttempts: 3, backoff: () => 0 }).breaker().fallback(() => 'fallback'),
  };
  for (const [name, chain] of Object.entries(chains)) {
    let calls = 0;
    const answer = await chain.execute(async () => {
      calls++;
      if (calls < 3) throw new Error('503');
      return 'answer';
    });
    let downCalls = 0;
    const down = await chain.execute(async () => {
      downCalls++;
      throw new Error('down');
    });
    out[name] = { answer, calls, down, downCalls };
  }
  out.guard = bw.isTimeoutError(new bw.TimeoutError('x'));
  return out;
}
`;

/** The scenario's answer on every runtime: no figure here comes from the code under test. */
const EXPECTED = {
  pipe: { answer: 'answer', calls: 3, down: 'fallback', downCalls: 3 },
  builder: { answer: 'answer', calls: 3, down: 'fallback', downCalls: 3 },
  guard: true,
};

/** A temporary app whose node_modules links `breakwater` to this repository, with the scenario and a main module printing its result. */
function makeApp(): string {
  if (!existsSync(join(root, 'dist/index.js'))) throw new Error('dist/ is missing: run `npm run build` first');
  const app = mkdtempSync(join(tmpdir(), 'breakwater-runtimes-'));
  mkdirSync(join(app, 'node_modules'));
  symlinkSync(root, join(app, 'node_modules', 'breakwater'), 'dir');
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module', dependencies: { breakwater: '*' } }));
  writeFileSync(join(app, 'scenario.mjs'), SCENARIO);
  writeFileSync(
    join(app, 'main.mjs'),
    `import * as bw from 'breakwater';\nimport { scenario } from './scenario.mjs';\nconsole.log(JSON.stringify(await scenario(bw)));\n`,
  );
  writeFileSync(
    join(app, 'browser.mjs'),
    `import * as bw from 'breakwater';\nimport { scenario } from './scenario.mjs';\nglobalThis.__scenario = scenario(bw);\n`,
  );
  return app;
}

const app = makeApp();
const contexts: BrowserContext[] = [];
afterAll(async () => {
  for (const c of contexts) await c.close();
  rmSync(app, { recursive: true, force: true });
});

/** The first of `paths` (relative to the repository) that is a real executable, not an npm placeholder script (those are a few hundred bytes). */
function binary(paths: string[]): string | undefined {
  return paths.map((p) => join(root, p)).find((p) => existsSync(p) && statSync(p).size > 1_000_000);
}

const os = process.platform;
const bunArch = process.arch === 'arm64' ? 'aarch64' : process.arch;
/**
 * Where the `bun` package keeps its binary: in its platform package when npm
 * skipped install scripts; its postinstall moves it to bun/bin/bun.exe.
 */
const BUN = binary([
  `node_modules/@oven/bun-${os}-${bunArch}/bin/bun`,
  `node_modules/@oven/bun-${os}-${bunArch}-musl/bin/bun`,
  `node_modules/@oven/bun-${os}-${bunArch}-baseline/bin/bun`,
  'node_modules/bun/bin/bun.exe',
]);
/** Where the `deno` package keeps its binary: its platform package (the postinstall links it to deno/deno). */
const DENO = binary([
  `node_modules/@deno/${os}-${process.arch}-glibc/deno`,
  `node_modules/@deno/${os}-${process.arch}/deno`,
  `node_modules/@deno/${os === 'win32' ? 'win32' : os}-${process.arch}/deno.exe`,
  'node_modules/deno/deno',
]);
const DENO_ENV = { ...process.env, DENO_DIR: join(app, '.deno'), DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' };

/** Runs `file` with `args` in the app; its last stdout line parsed as JSON. */
async function jsonFrom(file: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<unknown> {
  const { stdout } = await run(file, args, { cwd: app, env, timeout: 60_000, maxBuffer: 1 << 20 });
  return JSON.parse(stdout.trim().split('\n').pop()!);
}

/** `undefined` when `probe` succeeds, else why the runtime cannot start. */
async function cannotStart(probe: () => Promise<unknown>): Promise<string | undefined> {
  try {
    await probe();
    return undefined;
  } catch (error) {
    return (error as Error).message.split('\n')[0];
  }
}

/** Starts headless Chromium with a new empty profile; the context is closed after the tests. */
async function launchChromium(): Promise<BrowserContext> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} not found (apt-get install -y chromium)`);
  const { chromium } = await import('playwright-core');
  const profile = join(app, 'chromium-profile');
  mkdirSync(profile);
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  contexts.push(context);
  return context;
}

let browser: BrowserContext | undefined;
const why = {
  chromium: await cannotStart(async () => (browser = await launchChromium())),
  bun: BUN === undefined ? 'no binary in node_modules/@oven/bun-* or node_modules/bun (npm install)' : await cannotStart(() => run(BUN, ['--version'], { timeout: 60_000 })),
  deno: DENO === undefined ? 'no binary in node_modules/@deno/* or node_modules/deno (npm install)' : await cannotStart(() => run(DENO, ['--version'], { env: DENO_ENV, timeout: 60_000 })),
};

/** Registers `body` as the runtime's test when it can start; else one SKIP line, or a failing test when runtimes are required. */
function onRuntime(runtime: keyof typeof why, title: string, body: () => Promise<void>): void {
  const reason = why[runtime];
  if (reason === undefined) it(title, body, 90_000);
  else if (required) {
    it(`${runtime} starts (BREAKWATER_REQUIRE_RUNTIMES=1)`, () => {
      throw new Error(`${runtime} cannot start: ${reason}`);
    });
  } else console.log(`SKIP ${runtime}: cannot start (${reason}); BREAKWATER_REQUIRE_RUNTIMES=1 makes this a failure`);
}

describe('a pipeline from the built package on other runtimes', () => {
  onRuntime('chromium', 'runs in headless Chromium from an esbuild browser bundle', async () => {
    const bundle = await build({
      entryPoints: [join(app, 'browser.mjs')],
      absWorkingDir: app,
      bundle: true,
      platform: 'browser',
      format: 'iife',
      write: false,
      logLevel: 'silent',
    }).catch((error: { errors?: { text: string }[] }) => {
      throw new Error(`esbuild cannot bundle breakwater for the browser: ${(error.errors ?? []).map((e) => e.text).join('; ')}`);
    });
    const page = await browser!.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.addScriptTag({ content: bundle.outputFiles[0]!.text });
    const result = await page.evaluate(() => (globalThis as unknown as { __scenario: Promise<unknown> }).__scenario);
    expect(errors).toEqual([]);
    expect(result).toEqual(EXPECTED);
  });

  onRuntime('bun', 'runs under Bun', async () => {
    expect(await jsonFrom(BUN!, ['--no-install', 'main.mjs'])).toEqual(EXPECTED);
  });

  onRuntime('deno', 'runs under Deno', async () => {
    expect(await jsonFrom(DENO!, ['run', '--no-prompt', '--node-modules-dir=manual', 'main.mjs'], DENO_ENV)).toEqual(EXPECTED);
  });
});
