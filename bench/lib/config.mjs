// How long the harness measures. `BENCH_QUICK=1` shrinks every count so a smoke
// test can run the whole harness in seconds; its numbers mean nothing.
export const quick = process.env.BENCH_QUICK === '1';

/** Rounds per figure: every subject of a figure is measured once per round, interleaved; the median is reported. */
export const rounds = Number(process.env.BENCH_ROUNDS ?? (quick ? 1 : 7));

/** mitata options of one measurement. */
export const mitataOptions = quick
  ? { min_cpu_time: 1e5, min_samples: 1, max_samples: 2, batch_samples: 8, warmup_samples: 0 }
  : { min_cpu_time: 350e6, min_samples: 12, batch_samples: 4096 };

/** Calls in flight at once for the concurrent-timeouts figure. */
export const concurrentCalls = quick ? 500 : 100_000;

/** Child processes (one each) per subject of the concurrent-timeouts figure. */
export const concurrentRounds = quick ? 1 : 3;

/** Instances per subject for the memory figure. */
export const memoryInstances = quick ? 500 : 100_000;

/** Child processes (one each) per subject of the memory figure. */
export const memoryRounds = quick ? 1 : 3;

/** Where the results go. */
export const outFile = process.env.BENCH_OUT ?? new URL('../results.json', import.meta.url).pathname;

/** Fresh processes per subject for the import CPU figure (the median is reported). */
export const importRuns = Number(process.env.BENCH_IMPORT_RUNS ?? (quick ? 3 : 15));
