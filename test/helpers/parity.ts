// The parity check of a policy's plain option rules (what the policy runs) against its zod schema (what
// `breakwater/config` exports): used by each policy's schema.test.ts.
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { ConfigError } from '../../lib/errors.js';
import { checkOptions, type ObjectRule, type Rule, type Shape } from '../../lib/options.js';
import { toConfigIssues } from '../../lib/schemas.js';
import { TestClock } from '../../lib/testing.js';

/** A predicate for options that take one. */
export const yes = (): boolean => true;

/** What one side said of an input: accepted with its value, or refused with its issues. */
export type Verdict = { ok: true; value: unknown } | { ok: false; issues: { path: string; message: string }[] };

/** The plain rule's verdict. */
export function plain(rule: Rule<unknown>, input: unknown): Verdict {
  try {
    return { ok: true, value: checkOptions(rule, input, 'p') };
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    return { ok: false, issues: [...e.issues] };
  }
}

/** The zod schema's verdict. */
export function schema(s: z.ZodType, input: unknown): Verdict {
  const r = s.safeParse(input);
  return r.success ? { ok: true, value: r.data } : { ok: false, issues: toConfigIssues(r.error) };
}

/** A clock for options that take one. */
export const clock = new TestClock();
/** Values of every type, each given to every key in turn. */
export const strangers: readonly unknown[] = ['text', -1, 0, 0.5, 1.5, Number.NaN, Infinity, true, null, [], {}, () => 1, clock];

/**
 * Runs `valid`, each of `cases` (every rule broken once), an unknown key,
 * a non-object, and each key set to a value of every type, through both.
 */
export function parity(title: string, rule: ObjectRule<Shape>, zod: z.ZodType, valid: readonly object[], cases: readonly object[]): void {
  describe(title, () => {
    it('accepts the valid options alike', () => {
      for (const input of valid) {
        const a = plain(rule, input);
        expect(a.ok, JSON.stringify(input)).toBe(true);
        expect(a).toEqual(schema(zod, input));
      }
    });
    it('rejects each broken rule with the same paths and messages', () => {
      for (const input of cases) {
        const a = plain(rule, input);
        expect(a.ok, JSON.stringify(input)).toBe(false);
        expect(a, JSON.stringify(input)).toEqual(schema(zod, input));
      }
    });
    it('agrees on unknown keys, non-objects and a value of every type in every key', () => {
      const base = valid[0]!;
      const inputs: unknown[] = [{ ...base, surprise: 1 }, 'text', null, undefined, [], 42];
      for (const key of Object.keys(rule.shape)) for (const v of strangers) inputs.push({ ...base, [key]: v });
      for (const input of inputs) expect(plain(rule, input), String(JSON.stringify(input))).toEqual(schema(zod, input));
    });
  });
}
