import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

interface Manifest {
  version: string;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

/** What npm installs with a package: its dependencies and its peers that are not optional (breakwater's rxjs). */
function installedWith(m: Manifest): string[] {
  const peers = Object.keys(m.peerDependencies ?? {}).filter((p) => m.peerDependenciesMeta?.[p]?.optional !== true);
  return [...Object.keys(m.dependencies ?? {}), ...peers];
}

const manifest = (dir: string): Manifest => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;

/** Copies a package and, recursively, its dependencies from the repository's node_modules (no network). */
function copyPackage(root: string, project: string, name: string): void {
  const to = join(project, 'node_modules', name);
  if (existsSync(to)) return;
  const from = join(root, 'node_modules', name);
  cpSync(from, to, { recursive: true, dereference: true });
  for (const dep of installedWith(manifest(from))) copyPackage(root, project, dep);
}

/** What the examples import besides breakwater: the optional peers of its integration entries, the type-checker's `@types/node`, and `yaml`. */
const TOOLS = [
  '@types/node',
  'ioredis',
  'yaml',
  'express',
  '@types/express',
  'fastify',
  '@grpc/grpc-js',
  'prom-client',
  '@opentelemetry/api',
  '@opentelemetry/sdk-metrics',
];

/** Links a tool the examples need but the package does not depend on (the type-checker's `@types/node`, the examples' ioredis). */
function linkPackage(root: string, project: string, name: string): void {
  const to = join(project, 'node_modules', name);
  mkdirSync(dirname(to), { recursive: true });
  symlinkSync(join(root, 'node_modules', name), to, 'dir');
}

/**
 * A fresh project in a temporary directory with the repository's `npm pack`
 * tarball installed as `node_modules/breakwater`, its dependencies and peer (zod, rxjs)
 * copied from the repository's node_modules (no network), and ioredis and
 * `@types/node` linked for the examples. The repository must be built
 * (`npm run build`).
 */
export function packedProject(root: string): string {
  if (!existsSync(join(root, 'dist', 'index.js'))) throw new Error('dist/ is missing: run `npm run build` first');
  const project = mkdtempSync(join(tmpdir(), 'breakwater-docs-'));
  const out = execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', project], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const [{ filename }] = JSON.parse(out) as [{ filename: string }];
  const pkg = join(project, 'node_modules', 'breakwater');
  mkdirSync(pkg, { recursive: true });
  execFileSync('tar', ['-xzf', join(project, filename), '-C', pkg, '--strip-components=1']);
  const deps = installedWith(manifest(pkg)); // zod, rxjs
  for (const dep of deps) copyPackage(root, project, dep);
  for (const tool of TOOLS) linkPackage(root, project, tool);
  const versions = Object.fromEntries([...deps, ...TOOLS].map((d) => [d, manifest(join(project, 'node_modules', d)).version]));
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'docs-examples', private: true, type: 'module', dependencies: { breakwater: `file:${filename}`, ...versions } }, null, 2),
  );
  return project;
}
