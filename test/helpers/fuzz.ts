import fc from 'fast-check';

/**
 * fast-check settings for every property test. `npm test` runs each property
 * with a fixed seed (reproducible CI); `npm run fuzz` sets `FUZZ_RUNS` (and
 * optionally `FUZZ_SEED`) to run them longer with a fresh seed, printed so a
 * failure can be replayed with `FUZZ_SEED=<seed>`.
 */
const env = process.env;
const fuzzRuns = Number(env.FUZZ_RUNS ?? 0);
export const FUZZING = fuzzRuns > 0;
export const FUZZ_SEED = env.FUZZ_SEED !== undefined ? Number(env.FUZZ_SEED) : FUZZING ? (Date.now() ^ (Math.random() * 0x7fffffff)) | 0 : 20_261_129;

/** `numRuns` for a property: `n` in CI, at least `FUZZ_RUNS` when fuzzing. */
export function runs(n: number): number {
  return FUZZING ? Math.max(n, fuzzRuns) : n;
}

fc.configureGlobal({ seed: FUZZ_SEED, ...(FUZZING ? { numRuns: fuzzRuns } : {}) });
if (FUZZING) console.log(`fast-check seed ${FUZZ_SEED} (replay with FUZZ_SEED=${FUZZ_SEED} FUZZ_RUNS=${fuzzRuns})`);
