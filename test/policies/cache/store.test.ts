import { describe, expect, it } from 'vitest';
import { jsonCacheCodec } from '../../../api/index.js';

describe('jsonCacheCodec', () => {
  it('jsonCacheCodec names what it cannot encode', () => {
    expect(() => jsonCacheCodec.encode(undefined)).toThrow('jsonCacheCodec: cannot encode undefined');
    expect(() => jsonCacheCodec.encode(() => 1)).toThrow('jsonCacheCodec: cannot encode function');
    expect(jsonCacheCodec.decode(jsonCacheCodec.encode({ a: [1] }))).toEqual({ a: [1] });
  });
});
