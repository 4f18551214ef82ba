import { describe, expect, it } from 'vitest';
import { isIdempotencyCodec } from '../../../api/index.js';
import { encodeChecked, type IdempotencyCodec } from '../../../policies/idempotent/codec.js';

describe('codec checks', () => {
  it('isIdempotencyCodec needs an object with encode and decode', () => {
    const fns = { encode: () => '', decode: () => undefined };
    expect(isIdempotencyCodec(fns)).toBe(true);
    expect(isIdempotencyCodec(null)).toBe(false);
    expect(isIdempotencyCodec(undefined)).toBe(false);
    expect(isIdempotencyCodec('codec')).toBe(false);
    expect(isIdempotencyCodec(Object.assign(() => {}, fns))).toBe(false);
    expect(isIdempotencyCodec({ encode: fns.encode })).toBe(false);
    expect(isIdempotencyCodec({ decode: fns.decode })).toBe(false);
    expect(isIdempotencyCodec({ encode: 'x', decode: fns.decode })).toBe(false);
    expect(isIdempotencyCodec({ encode: fns.encode, decode: 'x' })).toBe(false);
  });

  it('encodeChecked refuses a codec that does not round-trip or does not give text', () => {
    const lossy: IdempotencyCodec = { encode: () => '{}', decode: () => ({}) };
    expect(() => encodeChecked(lossy, { a: 1 }, 'k1')).toThrow(TypeError);
    expect(() => encodeChecked(lossy, { a: 1 }, 'k1')).toThrow(/key "k1" does not survive the codec's round trip/);
    const notText = { encode: () => 5, decode: () => 5 } as unknown as IdempotencyCodec;
    expect(() => encodeChecked(notText, 5, 'k2')).toThrow(TypeError);
    const ok: IdempotencyCodec = { encode: (v) => JSON.stringify(v), decode: (t) => JSON.parse(t) };
    expect(encodeChecked(ok, { a: 1 }, 'k')).toBe('{"a":1}');
  });
});
