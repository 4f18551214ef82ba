import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Options } from 'tsup';
import { describe, expect, it } from 'vitest';
import labBuild from '../../lab/tsup.config.js';
import { CLAIMS } from '../../lab/claims.js';
import { sectionIn, sections } from '../../lab/docs.js';
import { MODEL } from '../../lab/model.js';
import { publishPlan } from '../../lab/plan.js';
import { judgeAll, standingFailures } from '../../lab/predicates.js';
import { PUBLISHED_FILE } from '../../lab/published.js';
import { defaultWorkers, runLab } from '../../lab/run.js';
import { seedFileOf, seedJson, type SeedFile } from '../../lab/seeds.js';

// The lab step of CI (`npm run test:lab-docs`): the published figures (lab/published.json, written by
// `npm run lab:publish`) against the docs generated from them, the claims judged on them, and one of their
// seeds rerun. The rerun is the lab's heaviest test (one seed's 98 runs of 180 s, on every core).
const published = JSON.parse(readFileSync(PUBLISHED_FILE, 'utf8')) as SeedFile;

describe('the published lab figures', () => {
  it('generate the docs\' tables byte for byte (`npm run docs:lab` regenerates them)', () => {
    for (const s of sections(published)) {
      const doc = readFileSync(s.file, 'utf8');
      expect(sectionIn(doc, s.name), `${s.file}: ${s.name} (run \`npm run docs:lab\`)`).toBe(s.text.trim());
    }
  });

  it('hold every published claim', () => {
    const failing = standingFailures(judgeAll(published, CLAIMS)).map((r) => `${r.claim.id}: ${r.verdict}`);
    expect(failing).toEqual([]);
  });

  it('come from 20 seeds of full runs of the published plan (every row in the five faults, the focused scenarios’ rows)', () => {
    expect(published.seeds.length).toBeGreaterThanOrEqual(20);
    expect(published.durationMs).toBe(MODEL.durationMs);
    const plan = publishPlan();
    for (const seed of published.seeds)
      for (const scenario of published.scenarios)
        expect(Object.keys(published.runs[String(seed)]![scenario]!)).toEqual(published.rows.filter((row) => plan.get(row)!.has(scenario)));
  });

  it('are reproduced by rerunning their first seed', async () => {
    const seed = published.seeds[0]!;
    // inside the project, so the bundle resolves its packages from node_modules
    const cache = join(process.cwd(), 'node_modules', '.cache');
    mkdirSync(cache, { recursive: true });
    const dir = mkdtempSync(join(cache, 'breakwater-lab-'));
    try {
      await build({ ...(labBuild as Options), outDir: dir, config: false, silent: true });
      const fresh = await runLab(
        {
          rows: published.rows,
          scenarios: published.scenarios,
          seeds: [seed],
          durationMs: published.durationMs,
          only: (row, scenario) => published.runs[String(seed)]?.[scenario]?.[row] !== undefined,
        },
        { workers: defaultWorkers(), workerUrl: pathToFileURL(join(dir, 'worker.js')) },
      );
      expect(seedJson(seedFileOf(fresh, published.command), seed), `seed ${seed} differs from ${PUBLISHED_FILE}: run \`npm run lab:publish\``).toBe(
        seedJson(published, seed),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 600_000);
});
