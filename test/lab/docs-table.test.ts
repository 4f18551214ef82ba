import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { docsFile, tableIn } from '../../lab/docs.js';
import { DEFAULT_OPTIONS, runLab } from '../../lab/run.js';
import { markdownTables } from '../../lab/table.js';

// The docs' table is generated (`npm run docs:lab`), never typed by hand: it must match a fresh run at the default seed.
it('the lab table in the docs matches a fresh run at the default seed', async () => {
  const doc = readFileSync(docsFile(), 'utf8');
  const table = tableIn(doc);
  expect(table, `no lab table markers in ${docsFile()}`).toBeDefined();
  const fresh = await runLab(DEFAULT_OPTIONS);
  expect(table, 'run `npm run docs:lab` to regenerate the table').toBe(markdownTables(fresh).trim());
}, 600_000);
