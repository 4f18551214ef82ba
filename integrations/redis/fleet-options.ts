import { z } from 'zod';
import { clockSchema, intAtLeast, onceValid, parseOptions, positiveMs } from '../../lib/schemas.js';

const SHARE = 'expected a number in (0, 1]';

/** A share of the live instances, with a floor on the count. */
const shareQuorum = z
  .object({
    /** Share of the live instances (this one included) that must see the dependency sick. */
    share: z.number({ message: SHARE }).gt(0, { message: SHARE }).max(1, { message: SHARE }),
    /** Fewest sick instances that open the fleet, however few are live. @defaultValue 2 */
    atLeast: intAtLeast(1).default(2),
  })
  .strict();

/** Options of {@link redisFleet}. */
export const RedisFleetOptionsSchema = z
  .object({
    /** Names the dependency the fleet shares a verdict on: every instance using the same key is one fleet. */
    key: z.string({ message: 'expected a non-empty string' }).min(1, { message: 'expected a non-empty string' }),
    /** This instance's name in the fleet; two live instances must not share one. @defaultValue a random UUID */
    instanceId: z.string({ message: 'expected a non-empty string' }).min(1, { message: 'expected a non-empty string' }).optional(),
    /**
     * How many instances must see the dependency sick for the whole fleet to open: a count (an integer >= 1), or
     * `{ share, atLeast }`, a share of the live instances with a floor. @defaultValue `{ share: 0.5, atLeast: 2 }`
     */
    quorum: z.union([intAtLeast(1), shareQuorum]).default({ share: 0.5, atLeast: 2 }),
    /** Every how many ms an instance publishes its summary and reads the others'. @defaultValue 1,000 */
    summaryMs: positiveMs.default(1_000),
    /** A summary older than this counts for nothing (its instance has left the fleet). @defaultValue `3 × summaryMs` */
    staleMs: positiveMs.optional(),
    /** Once the fleet opens, the least time an instance stays isolated by it. @defaultValue 5,000 */
    openMs: positiveMs.default(5_000),
    /** Each exchange's own deadline: past it the exchange counts as failed. @defaultValue 200 */
    commandTimeoutMs: positiveMs.default(200),
    /** Put before the key. @defaultValue `'breakwater:fleet:'` */
    prefix: z.string({ message: 'expected a string' }).default('breakwater:fleet:'),
    /** Clock of the exchange timer, the deadlines and the ages. @defaultValue the breaker's clock */
    clock: clockSchema.optional(),
  })
  .strict()
  .superRefine((o, ctx) => {
    if (o.commandTimeoutMs > o.summaryMs) ctx.addIssue({ code: 'custom', path: ['commandTimeoutMs'], message: 'expected at most summaryMs' });
    const staleMs = o.staleMs ?? 3 * o.summaryMs;
    if (staleMs <= o.summaryMs + o.commandTimeoutMs) {
      ctx.addIssue({ code: 'custom', path: ['staleMs'], message: 'expected more than summaryMs + commandTimeoutMs (a live instance would look dead between two summaries)' });
    }
  }, onceValid);

/**
 * Options of {@link redisFleet}.
 * @example
 * ```ts
 * redisFleet(redis, breaker(), { key: 'payments-api', quorum: { share: 0.5, atLeast: 2 }, summaryMs: 1_000 });
 * ```
 */
export type RedisFleetOptions = z.input<typeof RedisFleetOptionsSchema>;

/** The options with their defaults applied. */
export interface ResolvedFleetOptions {
  readonly key: string;
  readonly instanceId?: string | undefined;
  readonly quorum: number | { readonly share: number; readonly atLeast: number };
  readonly summaryMs: number;
  readonly staleMs: number;
  readonly openMs: number;
  readonly commandTimeoutMs: number;
  readonly prefix: string;
  readonly clock?: z.output<typeof clockSchema> | undefined;
}

/** Checks `options` once (a `ConfigError` of `redisFleet` names each problem) and applies the defaults. */
export function fleetOptions(options: unknown): ResolvedFleetOptions {
  const o = parseOptions(RedisFleetOptionsSchema, options, 'redisFleet');
  return { ...o, staleMs: o.staleMs ?? 3 * o.summaryMs };
}

/** How many sick instances open the fleet when `live` instances are live. */
export function needed(quorum: ResolvedFleetOptions['quorum'], live: number): number {
  if (typeof quorum === 'number') return quorum;
  return Math.max(quorum.atLeast, Math.ceil(quorum.share * live - 1e-9));
}
