import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Options } from 'tsup';
import { expect, it } from 'vitest';
import labBuild from '../../lab/tsup.config.js';
import { docsFile, tableIn } from '../../lab/docs.js';
import { DEFAULT_OPTIONS, defaultWorkers, runLab } from '../../lab/run.js';
import { markdownTables } from '../../lab/table.js';

// The docs' table is generated (`npm run docs:lab`), never typed by hand: it must match a fresh run at the
// default seed. The full run is the lab's heaviest test: it builds the lab's worker and runs on every core.
it('the lab table in the docs matches a fresh run at the default seed', async () => {
  const doc = readFileSync(docsFile(), 'utf8');
  const table = tableIn(doc);
  expect(table, `no lab table markers in ${docsFile()}`).toBeDefined();
  // inside the project, so the bundle resolves its packages from node_modules
  const cache = join(process.cwd(), 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  const dir = mkdtempSync(join(cache, 'breakwater-lab-'));
  try {
    await build({ ...(labBuild as Options), outDir: dir, config: false, silent: true });
    const fresh = await runLab(DEFAULT_OPTIONS, { workers: defaultWorkers(), workerUrl: pathToFileURL(join(dir, 'worker.js')) });
    expect(table, 'run `npm run docs:lab` to regenerate the table').toBe(markdownTables(fresh).trim());
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 600_000);
