import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** How a doc block is tested, from its info string (```ts no-run, ```ts fragment). */
export type BlockMode = 'run' | 'no-run' | 'fragment';

/** One ```ts block of a guide or the README. */
export interface DocBlock {
  /** Path relative to the repository root. */
  readonly file: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  readonly mode: BlockMode;
  /** Needs a Redis server (info string `redis`, or it imports ioredis or breakwater/redis). */
  readonly redis: boolean;
  readonly code: string;
}

// A fence may be indented (a block inside a list item): its body loses the same indentation.
const FENCE = /^( *)```(\S*)\s*(.*)$/;

/** Every ```ts / ```typescript block of one markdown file. */
export function blocksOf(root: string, path: string): DocBlock[] {
  const lines = readFileSync(path, 'utf8').split('\n');
  const out: DocBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]!);
    if (open === null) continue;
    const indent = open[1]!.length;
    const lang = open[2]!;
    const words = open[3]!.split(/\s+/).filter(Boolean);
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !lines[i]!.trimStart().startsWith('```'); i++) body.push(lines[i]!.replace(new RegExp(`^ {0,${indent}}`), ''));
    if (lang !== 'ts' && lang !== 'typescript') continue;
    const code = body.join('\n') + '\n';
    const mode: BlockMode = words.includes('fragment') ? 'fragment' : words.includes('no-run') ? 'no-run' : 'run';
    const redis = words.includes('redis') || /from ['"](ioredis|breakwater\/redis)['"]/.test(code);
    out.push({ file: relative(root, path), line: start + 1, mode, redis, code });
  }
  return out;
}

/** The README's blocks and those of every guide in `docs/` (not the generated `docs/api`). */
export function allBlocks(root: string): DocBlock[] {
  const docs = readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => join(root, 'docs', f));
  return [join(root, 'README.md'), ...docs].flatMap((p) => blocksOf(root, p));
}

const normalise = (text: string): string => text.replace(/\s+/g, ' ').trim();

/**
 * What a block promises to print, in order: the text of its `//=> text`
 * comments. A remark after two spaces and a parenthesis (`//=> 5  (the
 * burst)`) is not part of it; `…` stands for any text (a duration, an id).
 */
export function promisedLines(code: string): string[] {
  return [...code.matchAll(/\/\/=> ?(.*)$/gm)].map((m) => m[1]!.replace(/ {2}\(.*\)$/, '').trim()).filter((l) => l !== '');
}

/**
 * True when `stdout` is exactly what `code` promises, in order, runs of
 * spaces and line breaks aside (a printed object may span lines): a block
 * that prints more, less or something else fails, and one that promises
 * nothing must print nothing.
 */
export function printsAsPromised(code: string, stdout: string): boolean {
  const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const pattern = promisedLines(code)
    .map((line) => normalise(line).split('…').map(escape).join('.*?'))
    .join(' ');
  return new RegExp(`^${pattern}$`, 's').test(normalise(stdout));
}
