import { z } from 'zod';
import { fnSchema, nonNegativeMs } from '../../lib/schemas.js';
import { isPermitSource, type AsyncPermitSource } from '../shared/permit.js';

/** Options of the HTTP guards ({@link protectHandler}, {@link protectExpress}, {@link protectFastify}). */
export const HttpGuardOptionsSchema = z
  .object({
    /**
     * One breaker or shedder in front of every route (a limiter or bulkhead through `policySource`). Give this or
     * `sourceFor`.
     */
    source: z.custom<AsyncPermitSource>(isPermitSource, { message: 'expected a permit source (an object with allow())' }).optional(),
    /**
     * Makes the source for a route key (`GET://users/:id`) on its first call: one breaker per route, as go-zero's
     * breaker handler. Give this or `source`.
     */
    sourceFor: fnSchema<(key: string) => AsyncPermitSource>().optional(),
    /**
     * Most route keys kept; calls with further keys share the source of key `'*'`.
     * @defaultValue 1000
     */
    maxKeys: z.number().int().positive().default(1_000),
    /**
     * Which final statuses count as failures for the source.
     * @defaultValue status >= 500 (go-zero)
     */
    isFailure: fnSchema<(status: number) => boolean>().optional(),
    /**
     * `Retry-After` when the rejection carries no delay of its own (an SRE breaker's), in ms, rounded up to seconds.
     * @defaultValue 1000
     */
    retryAfterMs: nonNegativeMs.default(1_000),
    /**
     * Told when a node:http handler throws or rejects (answered with a 500, counted as a failure).
     * @defaultValue `console.error`
     */
    onError: fnSchema<(error: unknown) => void>().optional(),
  })
  .strict()
  .refine((o) => (o.source === undefined) !== (o.sourceFor === undefined), {
    message: 'give exactly one of source and sourceFor',
    path: ['source'],
  });

/**
 * Options of the HTTP guards.
 * @example
 * ```ts
 * const options: HttpGuardOptions = { sourceFor: (key) => breaker({ name: key }) };
 * ```
 */
export type HttpGuardOptions = z.input<typeof HttpGuardOptionsSchema>;
