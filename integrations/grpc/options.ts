import { z } from 'zod';
import { fnSchema } from '../../lib/schemas.js';
import { isPermitSource, type PermitSource } from '../shared/permit.js';

const common = {
  /** One breaker for every method. Give this or `sourceFor`. */
  source: z.custom<PermitSource>(isPermitSource, { message: 'expected a permit source (an object with allow())' }).optional(),
  /** Makes the source for a breaker name on its first call (go-zero: one breaker per method). Give this or `source`. */
  sourceFor: fnSchema<(name: string) => PermitSource>().optional(),
  /**
   * Most names kept; further names share the source of name `'*'`.
   * @defaultValue 1000
   */
  maxKeys: z.number().int().positive().default(1_000),
  /**
   * Which status codes are failures.
   * @defaultValue {@link isFailureCode} (go-zero's list)
   */
  isFailure: fnSchema<(code: number) => boolean>().optional(),
};
const oneSource = (o: { source?: unknown; sourceFor?: unknown }) => (o.source === undefined) !== (o.sourceFor === undefined);
const oneSourceIssue = { message: 'give exactly one of source and sourceFor', path: ['source'] };

/** Options of {@link clientInterceptor}. */
export const ClientInterceptorOptionsSchema = z
  .object({
    ...common,
    /** The channel target (`'users:50051'`); breaker names are `target/package.Service/Method`, as go-zero's. */
    target: z.string().min(1, { message: 'expected the channel target' }),
  })
  .strict()
  .refine(oneSource, oneSourceIssue);

/** Options of {@link serverInterceptor}. */
export const ServerInterceptorOptionsSchema = z.object(common).strict().refine(oneSource, oneSourceIssue);

/**
 * Options of {@link clientInterceptor}.
 * @example
 * ```ts
 * const options: ClientInterceptorOptions = { target: 'users:50051', sourceFor: (name) => breaker({ name }) };
 * ```
 */
export type ClientInterceptorOptions = z.input<typeof ClientInterceptorOptionsSchema>;

/**
 * Options of {@link serverInterceptor}.
 * @example
 * ```ts
 * const options: ServerInterceptorOptions = { sourceFor: (name) => breaker({ name }) };
 * ```
 */
export type ServerInterceptorOptions = z.input<typeof ServerInterceptorOptionsSchema>;
