import { execFile } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeRedis, startRedis, type RedisServer } from '../helpers/redis.js';
import { allBlocks, printsAsPromised, promisedLines, type DocBlock } from './blocks.js';
import { packedProject } from './packed.js';

// Every ```ts block of README.md and docs/*.md is type-checked (strict) against
// the npm-packed package installed in a fresh project, then run by `node`.
// Info strings: ```ts no-run (type-check only), ```ts fragment (neither),
// ```ts redis (runs with REDIS_URL of a real redis-server; implied by an import
// of ioredis or breakwater/redis). Comments `//=> text` say what the block
// prints, in order, and all of it: a block that prints must promise every line
// (anything after two spaces and a parenthesis, `//=> 5  (the burst)`, is a
// remark; `…` stands for any text, a duration or an id). A fence may be
// indented, inside a list item.

const ROOT = resolve(import.meta.dirname, '../..');
const RUN_TIMEOUT_MS = 20_000;
// BREAKWATER_DOCS_ONLY=retry,README checks only the files whose path contains one of the words.
const only = process.env.BREAKWATER_DOCS_ONLY?.split(',').filter(Boolean);
const blocks = allBlocks(ROOT).filter((b) => only === undefined || only.some((w) => b.file.includes(w)));
const fileOf = (b: DocBlock): string => `${b.file.replace(/[^a-z0-9]+/gi, '-')}-${b.line}.mts`;

const COMPILER: ts.CompilerOptions = {
  strict: true,
  noUncheckedIndexedAccess: true,
  target: ts.ScriptTarget.ES2022,
  lib: ['lib.es2022.d.ts'],
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  types: ['node'],
  skipLibCheck: true,
  noEmit: true,
};

let project = '';
const diagnostics = new Map<string, string[]>();

beforeAll(() => {
  project = packedProject(ROOT);
  const files = blocks.filter((b) => b.mode !== 'fragment').map((b) => join(project, fileOf(b)));
  for (const b of blocks) {
    if (b.mode === 'fragment') continue;
    writeFileSync(join(project, fileOf(b)), b.code);
    const js = ts.transpileModule(b.code, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } });
    writeFileSync(join(project, fileOf(b).replace(/\.mts$/, '.mjs')), js.outputText);
  }
  const program = ts.createProgram(files, COMPILER);
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const name = d.file === undefined ? '(global)' : d.file.fileName.slice(project.length + 1);
    const where = d.file !== undefined && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : undefined;
    const text = `${where === undefined ? '' : `line ${where.line + 1}: `}${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
    diagnostics.set(name, [...(diagnostics.get(name) ?? []), text]);
  }
}, 120_000);

afterAll(() => {
  if (project !== '') rmSync(project, { recursive: true, force: true });
}, 60_000);

function run(b: DocBlock, env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; out: string }> {
  const file = join(project, fileOf(b).replace(/\.mts$/, '.mjs'));
  return new Promise((done) => {
    execFile(process.execPath, [file], { cwd: project, timeout: RUN_TIMEOUT_MS, env: { ...process.env, ...env } }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
      done({ code, stdout, out: `${stdout}${stderr}${error?.killed === true ? `\nkilled after ${RUN_TIMEOUT_MS} ms` : ''}` });
    });
  });
}

function expectOutput(b: DocBlock, stdout: string): void {
  const promised = promisedLines(b.code);
  const message = `${title(b)} printed\n${stdout}\nbut promises (//=>) ${promised.length === 0 ? 'nothing' : `\n${promised.join('\n')}`}`;
  expect(printsAsPromised(b.code, stdout), message).toBe(true);
}

function check(b: DocBlock): void {
  expect(diagnostics.get('(global)') ?? [], 'global type errors').toEqual([]);
  expect(diagnostics.get(fileOf(b)) ?? [], `type errors in ${b.file}:${b.line}`).toEqual([]);
}

const title = (b: DocBlock): string => `${b.file}:${b.line}${b.mode === 'run' ? '' : ` (${b.mode})`}`;

describe('doc examples (packed package, fresh project)', () => {
  it.skipIf(only !== undefined)('finds the README example and the getting-started examples', () => {
    expect(blocks.some((b) => b.file === 'README.md' && b.mode === 'run')).toBe(true);
    expect(blocks.some((b) => b.file === join('docs', 'getting-started.md') && b.mode === 'run')).toBe(true);
  });

  // Each block is its own node process: run a few at once.
  for (const b of blocks.filter((x) => !x.redis)) {
    (b.mode === 'fragment' ? it.skip : it.concurrent)(title(b), async () => {
      check(b);
      if (b.mode !== 'run') return;
      const r = await run(b);
      if (process.env.BREAKWATER_DOCS_SHOW === '1') process.stdout.write(`--- ${title(b)}\n${r.out}`);
      expect(r.code, r.out).toBe(0);
      expectOutput(b, r.stdout);
    }, RUN_TIMEOUT_MS + 10_000);
  }
});

const redisBlocks = blocks.filter((x) => x.redis);
if (redisBlocks.length > 0) describeRedis('doc examples that need Redis', () => {
  let server: RedisServer | undefined;
  beforeAll(async () => {
    server = await startRedis();
  });
  afterAll(() => server?.dispose());

  for (const b of redisBlocks) {
    it.skipIf(b.mode === 'fragment')(title(b), async () => {
      check(b);
      if (b.mode !== 'run') return;
      const r = await run(b, { REDIS_URL: server!.url });
      if (process.env.BREAKWATER_DOCS_SHOW === '1') process.stdout.write(`--- ${title(b)}\n${r.out}`);
      expect(r.code, r.out).toBe(0);
      expectOutput(b, r.stdout);
    }, RUN_TIMEOUT_MS + 10_000);
  }
});
