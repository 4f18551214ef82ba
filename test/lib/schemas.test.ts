import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../lib/errors.js';
import { clockSchema, fnSchema, intAtLeast, nameSchema, nonNegativeMs, parseOptions, positiveMs, randomSchema, ratio, toConfigIssues } from '../../lib/schemas.js';
import { TestClock } from '../../lib/testing.js';

const messages = (s: z.ZodType, v: unknown) => {
  const r = s.safeParse(v);
  return r.success ? [] : toConfigIssues(r.error).map((i) => i.message);
};

describe('toConfigIssues', () => {
  it('reports each unknown key at its own path', () => {
    const r = z.object({ a: z.number() }).strict().safeParse({ a: 1, b: 2, c: 3 });
    expect(toConfigIssues(r.error!)).toEqual([
      { path: 'b', message: 'unknown option' },
      { path: 'c', message: 'unknown option' },
    ]);
  });

  it('reports a union by the branch that got furthest, and prefixes every path', () => {
    const s = z.union([z.object({ kind: z.literal('a'), n: z.number() }).strict(), z.object({ kind: z.literal('b'), m: z.number(), k: z.number() }).strict()]);
    const r = s.safeParse({ kind: 'a', n: 'x' });
    expect(toConfigIssues(r.error!, ['policies', 2])).toEqual([{ path: 'policies[2].n', message: 'Invalid input: expected number, received string' }]);
  });
});

describe('parseOptions', () => {
  it('returns the parsed options with defaults, or throws a ConfigError naming the policy and every problem', () => {
    const s = z.object({ ms: positiveMs.default(5), name: nameSchema.optional() }).strict();
    expect(parseOptions(s, {}, 'p')).toEqual({ ms: 5 });
    try {
      parseOptions(s, { ms: 0, name: '' }, 'timeout');
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      expect((e as ConfigError).policy).toBe('timeout');
      expect((e as ConfigError).issues).toEqual([
        { path: 'ms', message: 'expected a number greater than 0' },
        { path: 'name', message: 'expected a non-empty string' },
      ]);
    }
  });
});

describe('the zod rule helpers', () => {
  it('say each rule in words', () => {
    expect(messages(positiveMs, 0)).toEqual(['expected a number greater than 0']);
    expect(messages(positiveMs, 'x')).toEqual(['expected a finite number of milliseconds']);
    expect(messages(nonNegativeMs, -1)).toEqual(['expected a number >= 0']);
    expect(messages(nonNegativeMs, 0)).toEqual([]);
    expect(messages(ratio, 1.5)).toEqual(['expected a number in [0, 1]']);
    expect(messages(intAtLeast(2), 1.5)).toContain('expected an integer >= 2');
    expect(messages(intAtLeast(2), 2)).toEqual([]);
    expect(messages(clockSchema, {})).toEqual(['expected a Clock (now, setTimeout, clearTimeout)']);
    expect(messages(clockSchema, new TestClock(0))).toEqual([]);
    expect(messages(randomSchema, 0.5)).toEqual(['expected a function returning a number in [0, 1)']);
    expect(messages(fnSchema(), 'f')).toEqual(['expected a function']);
  });
});
