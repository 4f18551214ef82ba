// What breakwater weighs to an app, against cockatiel: CPU time to import it
// in a fresh process, minified browser bundle sizes, and install size. Each
// figure works on the built package (dist/, through package.json's entry
// names) and on cockatiel from this repository's node_modules.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { importRuns } from './config.mjs';
import { median, minus } from './measure.mjs';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
const modules = join(root, 'node_modules');
const importChild = fileURLToPath(new URL('../import-child.mjs', import.meta.url));

/** A table row (the shape of bench/figures.mjs): met when `ours / theirs <= maxRatio`, `ours <= absMax` (when given) and `ok`. */
function row(figure, unit, ours, theirs, theirsLabel, maxRatio, target, absMax, ok = true) {
  const ratio = ours / theirs;
  const met = ok && ratio <= maxRatio && (absMax === undefined || ours <= absMax);
  return { figure, unit, ours, theirs, theirsLabel, ratio, maxRatio, absMax, target, met };
}

/** The version of a package installed in this repository's node_modules. */
function versionOf(name) {
  return JSON.parse(readFileSync(join(modules, name, 'package.json'), 'utf8')).version;
}

// ---------------------------------------------------------------- import CPU

/** What each fresh process imports; `empty` is the baseline every other subject is measured above. */
function importSubjects(dir) {
  const empty = join(dir, 'empty.mjs');
  writeFileSync(empty, 'export {};\n');
  return {
    empty: pathToFileURL(empty).href,
    breakwater: pathToFileURL(join(root, 'dist/index.js')).href,
    rxjs: 'rxjs',
    zod: 'zod',
    cockatiel: 'cockatiel',
  };
}

/** CPU ms (user + system) that one fresh node process spends in `await import(specifier)`. */
async function importCpuMs(specifier) {
  const { stdout } = await run(process.execPath, [importChild, specifier], { cwd: root });
  return JSON.parse(stdout.trim().split('\n').pop()).cpuMs;
}

/**
 * Import CPU time: every subject once per round in a fresh process, rounds
 * interleaved so that drift in the machine's load hits all alike; each
 * round's empty-module import is subtracted, and the median reported.
 */
export async function importCpu() {
  const dir = mkdtempSync(join(tmpdir(), 'breakwater-import-'));
  try {
    const subjects = importSubjects(dir);
    const gross = Object.fromEntries(Object.keys(subjects).map((k) => [k, []]));
    for (let i = 0; i < importRuns; i++) {
      for (const [name, spec] of Object.entries(subjects)) gross[name].push(await importCpuMs(spec));
    }
    const net = Object.fromEntries(Object.keys(subjects).filter((k) => k !== 'empty').map((k) => [k, median(minus(gross[k], gross.empty))]));
    const budget = net.rxjs + net.cockatiel;
    return {
      rows: [
        row("import CPU, import('breakwater') (fresh process, median)", 'ms', net.breakwater, budget, 'rxjs + cockatiel', 1, '<= rxjs + cockatiel'),
        row('import CPU, breakwater vs cockatiel (whole library)', 'ms', net.breakwater, net.cockatiel, 'cockatiel', Infinity, 'info'),
        row('import CPU, rxjs alone (a peer: in both sides of the target)', 'ms', net.rxjs, net.cockatiel, 'cockatiel', Infinity, 'info'),
        row('import CPU, zod alone (loaded by breakwater/config only)', 'ms', net.zod, net.cockatiel, 'cockatiel', Infinity, 'info'),
      ],
      raw: { runs: importRuns, grossMs: gross, netMedianMs: net },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// ------------------------------------------------------------------- bundles

/** The entry files bundled: each imports what one app would, from the package names. */
export const BUNDLES = {
  builder: `import { policy } from 'breakwater';
export const p = policy().timeout(1000).retry({ maxAttempts: 3 }).breaker().fallback(() => 0);
`,
  pipe: `import { breaker, fallback, pipe, retry, timeout } from 'breakwater';
export const p = pipe(timeout(1000), retry({ maxAttempts: 3 }), breaker(), fallback(() => 0));
`,
  isTimeoutError: `export { isTimeoutError } from 'breakwater';
`,
  cockatielChain: `import { circuitBreaker, ConsecutiveBreaker, ExponentialBackoff, fallback, handleAll, retry, timeout, TimeoutStrategy, wrap } from 'cockatiel';
export const p = wrap(
  fallback(handleAll, () => 0),
  circuitBreaker(handleAll, { halfOpenAfter: 10_000, breaker: new ConsecutiveBreaker(5) }),
  retry(handleAll, { maxAttempts: 2, backoff: new ExponentialBackoff() }),
  timeout(1000, TimeoutStrategy.Cooperative),
);
`,
  cockatielIsBrokenCircuitError: `export { isBrokenCircuitError } from 'cockatiel';
`,
  cockatielWhole: `export * from 'cockatiel';
`,
};

/** The Node built-ins among esbuild's "Could not resolve" errors, or undefined when any error is of another kind. */
function unresolvedBuiltins(error) {
  const names = (error.errors ?? []).map((e) => /^Could not resolve "([^"]+)"$/.exec(e.text)?.[1]);
  const builtin = (n) => n !== undefined && (n.startsWith('node:') || builtinModules.includes(n));
  return names.length > 0 && names.every(builtin) ? [...new Set(names)] : undefined;
}

/**
 * Bundles `source` (an entry file in `dir`, whose node_modules links
 * breakwater to this repository and cockatiel to its copy) with esbuild:
 * browser platform, minified, ESM. A Node built-in the browser lacks fails
 * the bundle; it is then bundled again with those built-ins left external,
 * so the size is still measured, and the row is marked not met.
 */
async function bundleSize(dir, name, source) {
  const entry = join(dir, `${name}.mjs`);
  writeFileSync(entry, source);
  const options = { entryPoints: [entry], bundle: true, minify: true, platform: 'browser', format: 'esm', write: false, logLevel: 'silent', absWorkingDir: dir };
  let builtins = [];
  let result;
  try {
    result = await build(options);
  } catch (error) {
    builtins = unresolvedBuiltins(error);
    if (builtins === undefined) throw error;
    result = await build({ ...options, external: builtins });
  }
  const code = result.outputFiles[0].contents;
  return { bytes: code.length, gzipBytes: gzipSync(code, { level: 9 }).length, nodeBuiltins: builtins };
}

/** A temp project whose node_modules links `breakwater` to this repository (its package.json `exports`, its dist/) and `cockatiel` to the repository's copy. */
function bundleProject() {
  const dir = mkdtempSync(join(tmpdir(), 'breakwater-bundle-'));
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(root, join(dir, 'node_modules', 'breakwater'), 'dir');
  symlinkSync(join(modules, 'cockatiel'), join(dir, 'node_modules', 'cockatiel'), 'dir');
  writeFileSync(join(dir, 'package.json'), '{ "private": true, "type": "module" }\n');
  return dir;
}

/** Minified browser bundle sizes (esbuild) of the BUNDLES entries; KB = 1,000 bytes. */
export async function bundles() {
  const dir = bundleProject();
  try {
    const b = {};
    for (const [name, source] of Object.entries(BUNDLES)) b[name] = await bundleSize(dir, name, source);
    const kb = (x) => x / 1000;
    const browserOk = (x) => x.nodeBuiltins.length === 0;
    const note = (x) => (browserOk(x) ? '' : `, no Node built-in (needs ${x.nodeBuiltins.join(', ')})`);
    return {
      rows: [
        row('bundle, pipe(timeout, retry, breaker(), fallback), min', 'KB', kb(b.pipe.bytes), kb(b.cockatielChain.bytes), 'cockatiel wrap(...)', 3, `<= 3x${note(b.pipe)}`, undefined, browserOk(b.pipe)),
        row('bundle, isTimeoutError alone, min', 'KB', kb(b.isTimeoutError.bytes), kb(b.cockatielIsBrokenCircuitError.bytes), 'cockatiel isBrokenCircuitError', Infinity, `<= 5 KB${note(b.isTimeoutError)}`, 5, browserOk(b.isTimeoutError)),
        row('bundle, builder policy()...fallback(), min', 'KB', kb(b.builder.bytes), kb(b.cockatielChain.bytes), 'cockatiel wrap(...)', Infinity, `<= 120 KB${note(b.builder)}`, 120, browserOk(b.builder)),
        row('bundle, builder vs cockatiel whole library, min', 'KB', kb(b.builder.bytes), kb(b.cockatielWhole.bytes), 'cockatiel (all)', Infinity, 'info'),
        row('bundle, pipe(...) chain, min+gzip', 'KB', kb(b.pipe.gzipBytes), kb(b.cockatielChain.gzipBytes), 'cockatiel wrap(...)', Infinity, 'info'),
        row('bundle, builder chain, min+gzip', 'KB', kb(b.builder.gzipBytes), kb(b.cockatielChain.gzipBytes), 'cockatiel wrap(...)', Infinity, 'info'),
      ],
      raw: { esbuild: versionOf('esbuild'), bundles: b },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// -------------------------------------------------------------- install size

/** `npm install <what> ...args` in a new empty project; returns `du -sk node_modules` (KiB). */
async function installedKiB(what, args) {
  const dir = mkdtempSync(join(tmpdir(), 'breakwater-install-'));
  try {
    writeFileSync(join(dir, 'package.json'), '{ "name": "app", "private": true }\n');
    await run('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--prefer-offline', '--loglevel=error', ...args, what], { cwd: dir, maxBuffer: 1 << 22 });
    const { stdout } = await run('du', ['-sk', 'node_modules'], { cwd: dir });
    return Number(stdout.split('\t')[0]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Install size: this repository's `npm pack` tarball in an empty project, without and with its peers (rxjs), beside cockatiel's. MB = 1,000,000 bytes. */
export async function install() {
  const dir = mkdtempSync(join(tmpdir(), 'breakwater-pack-'));
  try {
    const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], { cwd: root, maxBuffer: 1 << 24 });
    const [{ filename, size, unpackedSize }] = JSON.parse(stdout);
    const tarball = join(dir, filename);
    const kib = {
      omitPeer: await installedKiB(tarball, ['--omit=peer']),
      withPeers: await installedKiB(tarball, []),
      cockatiel: await installedKiB(`cockatiel@${versionOf('cockatiel')}`, []),
    };
    const mb = (k) => (k * 1024) / 1e6;
    return {
      rows: [
        row('install size, npm install --omit=peer <tarball>', 'MB', mb(kib.omitPeer), mb(kib.cockatiel), 'cockatiel', Infinity, '<= 11.5 MB', 11.5),
        row('install size, with peers (rxjs)', 'MB', mb(kib.withPeers), mb(kib.cockatiel), 'cockatiel', Infinity, 'info'),
      ],
      raw: { duKiB: kib, tarballBytes: size, unpackedBytes: unpackedSize },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** All three, as one figure of bench/index.mjs. */
export async function weight() {
  const parts = { importCpu: await importCpu(), bundles: await bundles(), install: await install() };
  return {
    rows: Object.values(parts).flatMap((p) => p.rows),
    raw: Object.fromEntries(Object.entries(parts).map(([k, p]) => [k, p.raw])),
  };
}
