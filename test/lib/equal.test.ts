import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deepStrictEqual } from '../../lib/equal.js';

describe('deepStrictEqual', () => {
  it('judges what the codec check needs as Node does', () => {
    const cases: [unknown, unknown, boolean][] = [
      [{ a: undefined }, {}, false],
      [{}, { a: undefined }, false],
      [NaN, NaN, true],
      [0, -0, false],
      [new Date(5), '1970-01-01T00:00:00.005Z', false],
      [new Date(5), new Date(5), true],
      [new Date(5), new Date(6), false],
      [[1, [2, { x: 3 }]], [1, [2, { x: 3 }]], true],
      [[1, 2], { 0: 1, 1: 2, length: 2 }, false],
      [new Map([['a', { b: 1 }]]), new Map([['a', { b: 1 }]]), true],
      [new Map([['a', 1]]), new Map([['a', 2]]), false],
      [new Map([[{ k: 1 }, 1]]), new Map([[{ k: 1 }, 1]]), true],
      [new Set([1, { a: 2 }]), new Set([1, { a: 2 }]), true],
      [new Set([1, 2]), new Set([1, 3]), false],
      [new Uint8Array([1, 2]), new Uint8Array([1, 2]), true],
      [new Uint8Array([1, 2]), new Uint16Array([1, 2]), false],
      [/a/g, /a/g, true],
      [/a/g, /a/i, false],
      [Object.create(null), {}, false],
      [{ [Symbol.for('s')]: 1 }, { [Symbol.for('s')]: 1 }, true],
      [{ [Symbol.for('s')]: 1 }, {}, false],
      [new (class A {})(), {}, false],
      [null, undefined, false],
      [1n, 1n, true],
    ];
    for (const [a, b, expected] of cases) {
      expect(isDeepStrictEqual(a, b)).toBe(expected); // the reference agrees with the table
      expect(deepStrictEqual(a, b), `case ${cases.findIndex((c) => c[0] === a)}`).toBe(expected);
    }
  });

  it('ends on cycles', () => {
    const a: Record<string, unknown> = { x: 1 };
    a.self = a;
    const b: Record<string, unknown> = { x: 1 };
    b.self = b;
    const c: Record<string, unknown> = { x: 2 };
    c.self = c;
    expect(deepStrictEqual(a, b)).toBe(true);
    expect(deepStrictEqual(a, c)).toBe(false);
  });

  it('agrees with util.isDeepStrictEqual on arbitrary values and on their JSON round trip', () => {
    fc.assert(
      fc.property(fc.anything({ withDate: true, withMap: true, withSet: true, withTypedArray: true, withNullPrototype: true, withBigInt: true }), (v) => {
        expect(deepStrictEqual(v, v)).toBe(true);
        let back: unknown;
        try {
          back = JSON.parse(JSON.stringify(v) ?? 'null');
        } catch {
          return; // BigInt: not JSON
        }
        expect(deepStrictEqual(back, v)).toBe(isDeepStrictEqual(back, v));
        expect(deepStrictEqual(v, back)).toBe(isDeepStrictEqual(v, back));
      }),
      { numRuns: 500 },
    );
  });
});
