/**
 * The zod forms of the option rules, for the schemas behind `breakwater/config`
 * (policies check their options with the plain rules of `lib/options.ts`).
 */
import { z } from 'zod';
import { isClock, type Clock } from './clock.js';
import { ConfigError, type ConfigIssue } from './errors.js';
import { formatPath } from './options.js';
import { RESERVE_ORDER, SHARES_SUM } from './shedding.js';

export { formatPath };

/** Turns zod's issues into breakwater's, each with its path and the rule in words. */
export function toConfigIssues(error: z.ZodError, prefix: readonly PropertyKey[] = []): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        issues.push({ path: formatPath([...prefix, ...issue.path, key]), message: 'unknown option' });
      }
    } else if (issue.code === 'invalid_union' && 'errors' in issue && issue.errors.length > 0) {
      // Report the branch that got furthest rather than "invalid input".
      const best = issue.errors.reduce((a, b) => (b.length < a.length ? b : a));
      for (const sub of best) {
        issues.push({ path: formatPath([...prefix, ...issue.path, ...sub.path]), message: sub.message });
      }
    } else {
      issues.push({ path: formatPath([...prefix, ...issue.path]), message: issue.message });
    }
  }
  return issues;
}

/**
 * Validates `input` against `schema` once, at construction, and returns the
 * parsed (defaulted) options; throws a {@link ConfigError} listing every
 * problem, each with its path.
 */
export function parseOptions<S extends z.ZodType>(schema: S, input: unknown, policy: string): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw new ConfigError(policy, toConfigIssues(result.error));
}

/**
 * Runs a cross-field rule only on fields that passed their own checks, so one
 * mistake is not reported twice (`superRefine(rule, onceValid)`; the plain
 * rules' `whenValid`).
 */
export const onceValid = { when: (payload: z.core.ParsePayload): boolean => payload.issues.length === 0 };

/** A {@link Clock}: an object with `now`, `setTimeout` and `clearTimeout`. */
export const clockSchema = z.custom<Clock>(isClock, { message: 'expected a Clock (now, setTimeout, clearTimeout)' });

/** A random source: a function returning a number in [0, 1). */
export const randomSchema = z.custom<() => number>((v) => typeof v === 'function', {
  message: 'expected a function returning a number in [0, 1)',
});

/** A function option of any signature; its type is written by hand where it is used. */
export const fnSchema = <F extends (...args: never[]) => unknown>() =>
  z.custom<F>((v) => typeof v === 'function', { message: 'expected a function' });

/** A policy name. */
export const nameSchema = z.string().min(1, { message: 'expected a non-empty string' });

/** A finite number of milliseconds greater than zero (native checks, so the JSON Schema carries them). */
export const positiveMs = z
  .number({ message: 'expected a finite number of milliseconds' })
  .positive({ message: 'expected a number greater than 0' });

/** A finite number of milliseconds, zero allowed. */
export const nonNegativeMs = z
  .number({ message: 'expected a finite number of milliseconds' })
  .nonnegative({ message: 'expected a number >= 0' });

/** A ratio in [0, 1]. */
export const ratio = z.number({ message: 'expected a number in [0, 1]' }).min(0, { message: 'expected a number in [0, 1]' }).max(1, { message: 'expected a number in [0, 1]' });

/** An integer >= `min`. */
export const intAtLeast = (min: number) =>
  z
    .number({ message: `expected an integer >= ${min}` })
    .int({ message: `expected an integer >= ${min}` })
    .min(min, { message: `expected an integer >= ${min}` });

const RESERVE = 'expected a number in [0, 1)';
const reserveShare = z.number({ message: RESERVE }).min(0, { message: RESERVE }).lt(1, { message: RESERVE });

/** The zod form of `reserveRule` (lib/shedding.ts): the shares of capacity kept from default and sheddable calls. */
export const reserveSchema = z
  .object({
    /** Share of the capacity `default` calls may not use. @defaultValue 0 */
    default: reserveShare.default(0),
    /** Share of the capacity `sheddable` calls may not use. @defaultValue 0.1 */
    sheddable: reserveShare.default(0.1),
  })
  .strict()
  .refine((o) => o.sheddable >= o.default, { message: RESERVE_ORDER, path: ['sheddable'], when: (payload) => payload.issues.length === 0 });

const SHARE = 'expected a number in (0, 1]';

/** The zod form of `partitionsRule` (lib/shedding.ts): a share in (0, 1] per partition, adding up to at most 1. */
export const partitionsSchema = z
  .record(z.string(), z.number({ message: SHARE }).gt(0, { message: SHARE }).max(1, { message: SHARE }))
  .refine((shares) => Object.values(shares).reduce((a, b) => a + b, 0) <= 1 + 1e-9, { message: SHARES_SUM });
