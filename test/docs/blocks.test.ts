import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { blocksOf, printsAsPromised, promisedLines } from './blocks.js';

const dir = mkdtempSync(join(tmpdir(), 'breakwater-blocks-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const page = [
  '# Page',
  '```ts',
  "import { policy } from 'breakwater';",
  '```',
  '```js',
  'cockatiel();',
  '```',
  '```ts no-run',
  'declare const x: number;',
  '```',
  '```typescript fragment',
  'x +',
  '```',
  '```ts',
  "import { redisStore } from 'breakwater/redis';",
  '```',
  '```sh',
  'npm test',
  '```',
  '- a list item with its example:',
  '',
  '  ```ts',
  "  import { retry } from 'breakwater';",
  '    retry();',
  '  ```',
].join('\n');

describe('blocksOf', () => {
  it('takes every ts block with its line, mode and Redis need, and nothing else', () => {
    const file = join(dir, 'page.md');
    writeFileSync(file, page);
    const blocks = blocksOf(dir, file);
    expect(blocks.map((b) => [b.file, b.line, b.mode, b.redis])).toEqual([
      ['page.md', 2, 'run', false],
      ['page.md', 8, 'no-run', false],
      ['page.md', 11, 'fragment', false],
      ['page.md', 14, 'run', true],
      ['page.md', 22, 'run', false],
    ]);
    expect(blocks[0]!.code).toBe("import { policy } from 'breakwater';\n");
    // an indented fence (inside a list item) loses its indentation, and only that
    expect(blocks[4]!.code).toBe("import { retry } from 'breakwater';\n  retry();\n");
  });
});

describe('printsAsPromised', () => {
  const code = ["console.log(1); //=> 1", "console.log('retry in', ms, 'ms'); //=> retry in … ms  (the backoff's delay)", 'console.log({ a: 1, b: [2] }); //=> { a: 1, b: [ 2 ] }'].join('\n');

  it('reads the promised lines in order, remarks left out', () => {
    expect(promisedLines(code)).toEqual(['1', 'retry in … ms', '{ a: 1, b: [ 2 ] }']);
  });

  it('holds when the block prints exactly its promises, … standing for any text and line breaks aside', () => {
    expect(printsAsPromised(code, '1\nretry in 250 ms\n{\n  a: 1,\n  b: [ 2 ]\n}\n')).toBe(true);
    expect(printsAsPromised('const x = 1;', '')).toBe(true);
  });

  it('fails when the block prints more, less, something else or in another order', () => {
    expect(printsAsPromised(code, '1\nretry in 250 ms\n{ a: 1, b: [ 2 ] }\nextra\n')).toBe(false);
    expect(printsAsPromised(code, '1\nretry in 250 ms\n')).toBe(false);
    expect(printsAsPromised(code, '2\nretry in 250 ms\n{ a: 1, b: [ 2 ] }\n')).toBe(false);
    expect(printsAsPromised(code, 'retry in 250 ms\n1\n{ a: 1, b: [ 2 ] }\n')).toBe(false);
    expect(printsAsPromised('console.log(1);', '1\n'), 'prints without promising').toBe(false);
    expect(printsAsPromised('//=> a.b', 'axb'), 'promised text is literal').toBe(false);
  });
});
