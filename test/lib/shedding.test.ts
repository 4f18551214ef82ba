import { describe, expect, it } from 'vitest';
import { checkOptions } from '../../lib/options.js';
import { ConfigError } from '../../lib/errors.js';
import { parseOptions, partitionsSchema, reserveSchema } from '../../lib/schemas.js';
import { fits, NO_PARTITION, partitionByRule, Partitions, partitionsRule, refusedFields, reserveFor, reserveRule } from '../../lib/shedding.js';

/** What the plain rule and the zod schema answer, side by side. */
function both(rule: Parameters<typeof checkOptions>[0], schema: Parameters<typeof parseOptions>[0], input: unknown) {
  const run = (f: () => unknown) => {
    try {
      return { ok: true, value: f() };
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      return { ok: false, issues: (e as ConfigError).issues };
    }
  };
  return [run(() => checkOptions(rule, input, 'x')), run(() => parseOptions(schema, input, 'x'))];
}

describe('reserveRule', () => {
  it('defaults to nothing kept from default calls and a tenth from sheddable ones', () => {
    expect(checkOptions(reserveRule, {}, 'x')).toEqual({ default: 0, sheddable: 0.1 });
  });

  it('says what reserveSchema says, valid or not', () => {
    const inputs = [{}, { default: 0.2, sheddable: 0.2 }, { sheddable: 0 }, { default: 0.3 }, { sheddable: 1 }, { default: -1, sheddable: 2 }, { default: 'x' }, { other: 1 }, 'x', null];
    for (const input of inputs) {
      const [plain, zod] = both(reserveRule, reserveSchema.prefault({}), input);
      expect(plain, JSON.stringify(input)).toEqual(zod);
    }
    expect(both(reserveRule, reserveSchema, { default: 0.3 })[0]).toEqual({
      ok: false,
      issues: [{ path: 'sheddable', message: 'must be >= default: sheddable calls are shed first' }],
    });
  });
});

describe('partitionsRule', () => {
  it('takes shares in (0, 1] adding up to at most 1, float noise forgiven, as partitionsSchema does', () => {
    const inputs = [{}, { a: 1 }, { a: 0.7, b: 0.2, c: 0.1 }, { a: 0.5, b: 0.6 }, { a: 0 }, { a: 1.5 }, { a: '0.5' }, [0.5], 'a', 3];
    for (const input of inputs) {
      const [plain, zod] = both(partitionsRule, partitionsSchema, input);
      expect(plain, JSON.stringify(input)).toEqual(zod);
    }
    expect(checkOptions(partitionsRule, { a: 0.7, b: 0.2, c: 0.1 }, 'x')).toEqual({ a: 0.7, b: 0.2, c: 0.1 });
    expect(() => checkOptions(partitionsRule, { a: 0.5, b: 0.6 }, 'x')).toThrow('the shares must add up to at most 1');
  });

  it('reads partitions by criticality unless told another key', () => {
    expect(checkOptions(partitionByRule, undefined, 'x')).toBe('criticality');
    expect(checkOptions(partitionByRule, 'tenant', 'x')).toBe('tenant');
  });
});

describe('reserveFor and fits', () => {
  it('keeps nothing from critical calls, reserve.default from default ones, reserve.sheddable from sheddable ones', () => {
    const r = { default: 0.2, sheddable: 0.5 };
    expect([reserveFor(r, 'critical'), reserveFor(r, 'default'), reserveFor(r, 'sheddable')]).toEqual([0, 0.2, 0.5]);
  });

  it('fits while less than capacity × (1 − share) is used, so an idle capacity of 1 takes any class', () => {
    expect(fits(4, 10, 0.5)).toBe(true);
    expect(fits(5, 10, 0.5)).toBe(false);
    expect(fits(9, 10, 0)).toBe(true);
    expect(fits(10, 10, 0)).toBe(false);
    expect(fits(0, 1, 0.9)).toBe(true);
    expect(fits(1, 1, 0)).toBe(false);
  });
});

describe('Partitions', () => {
  it('guarantees each partition ceil(limit × share), at least 1, without float noise rounding up', () => {
    const p = new Partitions({ live: 0.9, batch: 0.1 }, 'traffic');
    expect(p.guaranteed(0, 10)).toBe(9);
    expect(p.guaranteed(1, 10)).toBe(1);
    expect(p.guaranteed(1, 3)).toBe(1);
    expect(p.guaranteed(0, 3)).toBe(3);
    expect(p.guaranteed(NO_PARTITION, 10)).toBe(0);
  });

  it('finds a call by its label, counts calls in flight per partition and says when one is under its share', () => {
    const p = new Partitions({ live: 0.5, batch: 0.5 }, 'traffic');
    const live = p.of({ traffic: 'live' });
    expect(live).toBe(0);
    expect(p.of({ traffic: 'other' })).toBe(NO_PARTITION);
    expect(p.of({})).toBe(NO_PARTITION);
    p.enter(live);
    expect(p.under(live, 4)).toBe(true);
    p.enter(live);
    expect(p.under(live, 4)).toBe(false);
    expect(p.inFlight(live)).toBe(2);
    p.leave(live);
    expect(p.inFlight(live)).toBe(1);
    p.enter(NO_PARTITION);
    p.leave(NO_PARTITION);
    expect(p.inFlight(NO_PARTITION)).toBe(0);
    expect(p.under(NO_PARTITION, 100)).toBe(false);
    expect([p.nameOf(live), p.nameOf(NO_PARTITION)]).toEqual(['live', undefined]);
  });

  it('by criticality reads a missing or unknown value as default', () => {
    const p = new Partitions({ critical: 0.5, default: 0.5 }, 'criticality');
    expect(p.of({})).toBe(1);
    expect(p.of({ criticality: 'urgent' })).toBe(1);
    expect(p.of({ criticality: 'critical' })).toBe(0);
    expect(p.of({ criticality: 'sheddable' })).toBe(NO_PARTITION);
  });
});

describe('refusedFields', () => {
  it('names the criticality a call carried and its partition, and nothing it did not carry', () => {
    expect(refusedFields({})).toEqual({});
    expect(refusedFields({ criticality: 'urgent' })).toEqual({});
    expect(refusedFields({ criticality: 'sheddable' }, 'batch')).toEqual({ criticality: 'sheddable', partition: 'batch' });
  });
});
