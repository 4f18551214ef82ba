import { z } from 'zod';
import { clockSchema, fnSchema, nameSchema, nonNegativeMs, randomSchema } from '../../lib/schemas.js';
import type { ExecutionContext } from '../../lib/policy.js';
import type { ChaosResult } from './options.js';

/** The zod schema of the options of `chaos`, for `fromConfig` and the JSON Schema. */
export const ChaosOptionsSchema = z
  .object({
    /**
     * What an injected fault throws: any value, or a function `(ctx) => value` that makes a fresh one per call
     * (a function is always called, never thrown itself).
     * @defaultValue no fault
     */
    fault: z.unknown().optional(),
    /**
     * Latency added before the call goes on: milliseconds, or `(ctx) => ms`. Cancellable: the caller's abort or
     * an enclosing deadline ends it at once.
     * @defaultValue no latency
     */
    latency: z.union([nonNegativeMs, fnSchema<(ctx: ExecutionContext) => number>()]).optional(),
    /**
     * Substitute result of an injected call: `(ctx) => value`; the operation does not run. Exclusive with `fault`.
     * @defaultValue no substitute result
     */
    result: fnSchema<ChaosResult<unknown>>().optional(),
    /**
     * Share of calls injected, in [0, 1].
     * @defaultValue 0.001 (Polly's default)
     */
    injectionRate: z
      .number({ message: 'expected a number in [0, 1]' })
      .min(0, { message: 'expected a number in [0, 1]' })
      .max(1, { message: 'expected a number in [0, 1]' })
      .default(0.001),
    /**
     * Whether to inject at all: a boolean, or `(ctx) => boolean` asked on every call. `enable()` / `disable()`
     * switch the policy at run time on top of it.
     * @defaultValue true
     */
    enabled: z
      .union([z.boolean(), fnSchema<(ctx: ExecutionContext) => boolean>()], { message: 'expected a boolean or a function' })
      .default(true),
    /** Random source in [0, 1) for the injection draw. @defaultValue `Math.random` */
    random: randomSchema.optional(),
    /** @defaultValue `'chaos'` */
    name: nameSchema.default('chaos'),
    /** @defaultValue the system clock */
    clock: clockSchema.optional(),
  })
  .strict()
  .refine((o) => o.fault !== undefined || o.latency !== undefined || o.result !== undefined, {
    message: 'give at least one of fault, latency or result',
    path: ['fault'],
  })
  .refine((o) => o.fault === undefined || o.result === undefined, {
    message: 'fault and result are exclusive (pipe two chaos policies to have both)',
    path: ['result'],
  });
