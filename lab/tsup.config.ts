import { defineConfig } from 'tsup';

// The lab's build: the CLI and its worker, bundled with the library's sources (no dist needed).
export default defineConfig({
  entry: { cli: 'lab/cli.ts', worker: 'lab/worker.ts', docs: 'lab/docs.ts', publish: 'lab/publish.ts', sweep: 'lab/sweep-cli.ts', phase: 'lab/phase.ts' },
  outDir: 'lab-dist',
  format: ['esm'],
  platform: 'node',
  target: 'node20',
  clean: true,
  dts: false,
  splitting: true,
  sourcemap: false,
  external: ['vega', 'vega-lite', 'cli-progress', 'cli-table3', 'commander', 'rxjs', 'zod', 'ioredis'],
});
