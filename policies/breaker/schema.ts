/** The zod forms of the shared breaker option rules of `options.ts`, for the breakers' schemas. */
import { z } from 'zod';
import { bucketProblems, snapshotGridProblems, windowSnapshotProblems } from './options.js';

/** Which thrown values count as failures; a throw inside it counts as yes. */
export const handleSchema = z.custom<(error: unknown) => boolean>((v) => typeof v === 'function', { message: 'expected a function' });

/** Which results count as failures (e.g. an HTTP 503 response). */
export const handleResultSchema = z.custom<(result: unknown) => boolean>((v) => typeof v === 'function', {
  message: 'expected a function',
});

/** A finite number. */
export const finite = (message: string) => z.number({ message });

/** A ratio in [0, 1]. */
export const ratioSchema = finite('expected a ratio in [0, 1]').min(0, { message: 'expected a ratio in [0, 1]' }).max(1, { message: 'expected a ratio in [0, 1]' });

/** An integer >= `min`. */
export const intSchema = (min: number) =>
  z
    .number({ message: `expected an integer >= ${min}` })
    .int({ message: `expected an integer >= ${min}` })
    .min(min, { message: `expected an integer >= ${min}` });

/** Adds an issue at `buckets` unless `buckets` divides `windowMs` into whole milliseconds. */
export function checkBuckets(o: { windowMs: number; buckets: number }, ctx: z.RefinementCtx): void {
  for (const p of bucketProblems(o)) ctx.addIssue({ code: 'custom', path: [...p.path], message: p.message });
}

const count = z.number({ message: 'expected an integer >= 0' }).int({ message: 'expected an integer >= 0' }).min(0, { message: 'expected an integer >= 0' });
const epochMs = z.number({ message: 'expected a finite clock time' });

/** A rolling window's snapshot (`lib/window.ts` `WindowSnapshot`), checked for internal consistency. */
export const windowSnapshotSchema = z
  .object({
    origin: epochMs,
    bucketMs: z.number({ message: 'expected a number > 0' }).positive({ message: 'expected a number > 0' }),
    size: intSchema(1),
    head: intSchema(-1),
    sums: z.tuple([count, count, count]),
    counts: z.array(count).nullable(),
  })
  .strict()
  .superRefine((w, ctx) => {
    for (const p of windowSnapshotProblems(w)) ctx.addIssue({ code: 'custom', path: [...p.path], message: p.message });
  });

/** Adds an issue unless the snapshot's window has the grid the options give (`size` = buckets, `bucketMs` = windowMs / buckets). */
export function checkSnapshotGrid(o: { windowMs: number; buckets: number; initialState?: { window: { size: number; bucketMs: number } } | undefined }, ctx: z.RefinementCtx): void {
  for (const p of snapshotGridProblems(o)) ctx.addIssue({ code: 'custom', path: [...p.path], message: p.message });
}
