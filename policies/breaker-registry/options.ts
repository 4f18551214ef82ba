import { z } from 'zod';
import { clockSchema, nameSchema, positiveMs, randomSchema } from '../../lib/options.js';
import type { CircuitBreakerOptions } from '../circuit-breaker/options.js';
import type { SreBreakerOptions } from '../sre-breaker/options.js';

/** Options of {@link breakerRegistry} and {@link keyedBreaker}. */
export const BreakerRegistryOptionsSchema = z
  .object({
    /**
     * Options of every breaker the registry makes: SRE options, or state-machine options (with `strategy`).
     * Validated once, at construction, by the breaker's own schema.
     * @defaultValue `{}` (an SRE breaker with go-zero's defaults)
     */
    defaults: z
      .custom<SreBreakerOptions | CircuitBreakerOptions>((v) => typeof v === 'object' && v !== null, {
        message: 'expected breaker options',
      })
      .optional(),
    /**
     * A breaker unused for longer than this is dropped, lazily, when the registry is next used (no timer).
     * Keep it well above the breakers' `windowMs` and `openMs`.
     * @defaultValue 300_000
     */
    idleMs: positiveMs.default(300_000),
    /** Prefix of the breakers' names (`name:key`) and the name of a keyed breaker. @defaultValue `'breakers'` */
    name: nameSchema.default('breakers'),
    /** Clock of the breakers (unless `defaults` has one) and of idle tracking. @defaultValue the system clock */
    clock: clockSchema.optional(),
    /** Random source of SRE breakers (unless `defaults` has one). @defaultValue `Math.random` */
    random: randomSchema.optional(),
  })
  .strict();

/**
 * Options of {@link breakerRegistry}.
 * @example
 * ```ts
 * breakerRegistry({ defaults: { strategy: 'errorRatio', threshold: 0.5 }, idleMs: 600_000 });
 * ```
 */
export type BreakerRegistryOptions = z.input<typeof BreakerRegistryOptionsSchema>;
