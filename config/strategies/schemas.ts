import { z } from 'zod';
import { onceValid } from '../../lib/schemas.js';
import { checkAs, PolicyConfigSchema } from '../entries.js';
import { expand } from './expand.js';
import { strategyShapes, type StrategyConfig } from './shapes.js';

export { WriteBehindConfigSchema, type StrategyConfig } from './shapes.js';

/**
 * A strategy's options are also checked as the policy entries they are
 * written out into, so the schema refuses what `fromConfig` would (a
 * breaker tuning whose `buckets` do not divide its `windowMs`, a
 * slow-call threshold above 1), under the strategy option it comes from.
 */
function checkExpansion(o: unknown, ctx: z.RefinementCtx): void {
  for (const { entry, source } of expand(o as StrategyConfig).entries) checkAs(PolicyConfigSchema, entry, [source], ctx);
}

type Shapes = typeof strategyShapes;

/** The data form of each strategy's options, keyed by name, with the rules of the policies it is written out into. Functions are handler names. */
export const strategySchemas = Object.fromEntries(
  Object.entries(strategyShapes).map(([name, schema]) => [name, (schema as z.ZodObject).superRefine(checkExpansion, onceValid)]),
) as unknown as Shapes;

/** The names of the strategies that are pipelines (`writeBehind` is a writer). */
export type StrategyName = keyof typeof strategySchemas;

/** Any strategy as data: a discriminated union on `strategy`. */
export const StrategyConfigSchema = z.discriminatedUnion('strategy', [
  strategySchemas.failFast,
  strategySchemas.boundedRetry,
  strategySchemas.budgetedRetry,
  strategySchemas.standard,
  strategySchemas.guardedRetry,
  strategySchemas.slowCallShield,
  strategySchemas.errorCountTrip,
  strategySchemas.idempotentRetry,
  strategySchemas.fallbackChain,
  strategySchemas.layeredBreakers,
  strategySchemas.adaptiveDegrade,
]);

