import { z } from 'zod';
import { clockSchema, nameSchema, positiveMs, randomSchema } from '../../lib/schemas.js';
import type { CircuitBreakerOptions } from '../circuit-breaker/options.js';
import { isPlainObject, type AdaptiveDefaults, type SreDefaults } from './options.js';

/** The zod schema of the options of `breakerRegistry` and `keyedBreaker`, for `fromConfig` and the JSON Schema. */
export const BreakerRegistryOptionsSchema = z
  .object({
    /**
     * Options of every breaker the registry makes: the default breaker's (`adaptiveBreaker`), state-machine options
     * (with `strategy`), or SRE options marked `family: 'sre'`. Validated once, at construction, by the breaker's own schema.
     * @defaultValue `{}` (the default breaker with its defaults)
     */
    defaults: z
      .custom<AdaptiveDefaults | SreDefaults | CircuitBreakerOptions>(isPlainObject, {
        message: "expected breaker options (an object of the default breaker's, circuit-breaker or SRE options)",
      })
      .optional(),
    /**
     * A breaker unused for longer than this is dropped, lazily, when the registry is next used (no timer),
     * unless dropping it would change what the key's next call meets: an isolated breaker, a state machine
     * before its open period ends or with a probe unanswered, and a breaker whose window still holds a record
     * are kept (and looked at again after another `idleMs`). So an `idleMs` below `openMs` never cuts an open
     * period short: the breaker sheds for all of it and is dropped once idle after it, its key starting afresh
     * (closed, empty window) instead of half-open. A dropped breaker forgets a streak (`consecutiveFailures`).
     * @defaultValue 300_000
     * @example
     * ```ts
     * breakerRegistry({ idleMs: 600_000 }); // forget tenants silent for 10 minutes
     * ```
     */
    idleMs: positiveMs.default(300_000),
    /** Prefix of the breakers' names (`name:key`) and the name of a keyed breaker. @defaultValue `'breakers'` */
    name: nameSchema.default('breakers'),
    /** Clock of the breakers (unless `defaults` has one) and of idle tracking. @defaultValue the system clock */
    clock: clockSchema.optional(),
    /** Random source of the default and SRE breakers (unless `defaults` has one). @defaultValue `Math.random` */
    random: randomSchema.optional(),
  })
  .strict();
