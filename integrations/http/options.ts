import type { IncomingMessage } from 'node:http';
import { z } from 'zod';
import { fnSchema, nonNegativeMs, positiveMs } from '../../lib/schemas.js';
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
    /**
     * Header names of the wire format (deadline, criticality, attempt, do-not-retry; see docs/integrations.md).
     * @defaultValue `WIRE_HEADERS` (`x-breakwater-timeout-ms`, `x-breakwater-criticality`, `x-breakwater-attempt`, `x-breakwater-no-retry`)
     */
    headers: z
      .object({
        deadline: z.string().min(1),
        criticality: z.string().min(1),
        attempt: z.string().min(1),
        noRetry: z.string().min(1),
      })
      .partial()
      .strict()
      .optional(),
    /**
     * The longest a request may take here, in ms: a caller's deadline further away is cut to it, and a request
     * without one gets it.
     * @defaultValue none (the caller's deadline as it is)
     */
    maxDeadlineMs: positiveMs.optional(),
    /**
     * The status a request gets when it arrives with no time left (deadline header 0): answered at once, the
     * handler not called.
     * @defaultValue 504
     */
    expiredStatus: z.number().int().min(400).max(599).default(504),
    /**
     * Which callers may set a request's criticality (`x-breakwater-criticality`); the others' requests are `default`.
     * @defaultValue nobody (every request is `default`)
     */
    trustCriticality: fnSchema<(req: IncomingMessage) => boolean>().optional(),
    /**
     * Which handler failures (errors a node:http handler throws) are answered with the "do not retry" header. Failed
     * responses of a request whose downstream call failed (made with its `requestContext`) get it too.
     * @defaultValue `isDownstreamFailure`: a call to another service failed after its own retries, or a breaker, limiter or shedder refused
     */
    noRetry: fnSchema<(error: unknown) => boolean>().optional(),
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
