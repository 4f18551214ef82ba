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
