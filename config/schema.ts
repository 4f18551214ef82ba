import { z } from 'zod';
import { nameSchema } from '../lib/schemas.js';
import { StrategyConfigSchema, WriteBehindConfigSchema } from './strategies/schemas.js';
import { PolicyConfigSchema } from './entries.js';

/** A pipeline written as its policies, innermost first (like `pipe`). */
export const PoliciesConfigSchema = z
  .object({
    /** The pipeline's name in events. */
    name: nameSchema.optional(),
    /** The policies, innermost first. */
    policies: z.array(PolicyConfigSchema),
  })
  .strict();

/**
 * The whole pipeline as data: `{ name?, policies: [...] }` with each entry a
 * discriminated union on `type` (the factory's name), or
 * `{ name?, strategy: '<one of the named strategies>', ...options }`.
 * Functions are named and passed to `fromConfig` in `handlers`.
 *
 * @example
 * ```ts
 * PipelineConfigSchema.parse({ policies: [{ type: 'timeout', ms: 300 }, { type: 'retry', maxAttempts: 3 }] });
 * ```
 */
export const PipelineConfigSchema = z.union([PoliciesConfigSchema, StrategyConfigSchema, WriteBehindConfigSchema]);

/** A pipeline config as written (defaults optional): what `fromConfig` accepts. */
export type PipelineConfig = z.input<typeof PipelineConfigSchema>;
export type { PolicyConfig } from './entries.js';
