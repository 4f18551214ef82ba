import { deepStrictEqual } from '../../lib/equal.js';

/**
 * Turns results into the text a store keeps, and back. A result must
 * survive the round trip unchanged (deep strict equality, prototypes
 * included) to be stored; one that does not is never silently changed: its
 * callers get it as it was, and the key is recorded as run with no result.
 *
 * @example
 * ```ts
 * const superjsonCodec: IdempotencyCodec = { encode: (v) => superjson.stringify(v), decode: (t) => superjson.parse(t) };
 * ```
 */
export interface IdempotencyCodec {
  encode(value: unknown): string;
  decode(text: string): unknown;
}

/** JSON, with `undefined` (an operation that returns nothing) stored as the empty string. */
export const jsonIdempotencyCodec: IdempotencyCodec = {
  encode: (value) => (value === undefined ? '' : JSON.stringify(value)),
  decode: (text) => (text === '' ? undefined : JSON.parse(text)),
};

/** True for a {@link IdempotencyCodec}. */
export function isIdempotencyCodec(value: unknown): value is IdempotencyCodec {
  const c = value as IdempotencyCodec;
  return typeof value === 'object' && value !== null && typeof c.encode === 'function' && typeof c.decode === 'function';
}

/** Encodes `value`, checking that it decodes back to an equal value; throws a `TypeError` when it would not. */
export function encodeChecked(codec: IdempotencyCodec, value: unknown, key: string): string {
  const text = codec.encode(value);
  if (typeof text !== 'string' || !deepStrictEqual(codec.decode(text), value)) {
    throw new TypeError(
      `idempotent: the result for key "${key}" does not survive the codec's round trip (a Date, Map, class instance, undefined field...); it was not stored. Return plain data or pass a codec that keeps it.`,
    );
  }
  return text;
}
