import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { blocksOf } from './blocks.js';

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
    ]);
    expect(blocks[0]!.code).toBe("import { policy } from 'breakwater';\n");
  });
});
