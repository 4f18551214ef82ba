import { z } from 'zod';

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
  if (!Number.isInteger(o.windowMs / o.buckets)) {
    ctx.addIssue({ code: 'custom', path: ['buckets'], message: `must divide windowMs (${o.windowMs}) into whole milliseconds` });
  }
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
    if (w.counts === null) {
      if (w.head === -1 && (w.sums[0] !== 0 || w.sums[1] !== 0 || w.sums[2] !== 0)) ctx.addIssue({ code: 'custom', path: ['sums'], message: 'must be 0 before any record (head -1)' });
      return;
    }
    if (w.counts.length !== w.size * 3) {
      ctx.addIssue({ code: 'custom', path: ['counts'], message: `expected ${w.size * 3} counts (3 per bucket)` });
      return;
    }
    for (let f = 0; f < 3; f++) {
      let sum = 0;
      for (let i = f; i < w.counts.length; i += 3) sum += w.counts[i]!;
      if (sum !== w.sums[f]) ctx.addIssue({ code: 'custom', path: ['sums', f], message: 'must equal the sum of the bucket counts' });
    }
  });

/** Adds an issue unless the snapshot's window has the grid the options give (`size` = buckets, `bucketMs` = windowMs / buckets). */
export function checkSnapshotGrid(o: { windowMs: number; buckets: number; initialState?: { window: { size: number; bucketMs: number } } | undefined }, ctx: z.RefinementCtx): void {
  const w = o.initialState?.window;
  if (w === undefined) return;
  if (w.size !== o.buckets) ctx.addIssue({ code: 'custom', path: ['initialState', 'window', 'size'], message: `must equal buckets (${o.buckets})` });
  else if (w.bucketMs !== o.windowMs / o.buckets) ctx.addIssue({ code: 'custom', path: ['initialState', 'window', 'bucketMs'], message: `must equal windowMs / buckets (${o.windowMs / o.buckets})` });
}
