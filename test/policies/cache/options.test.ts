import { describe, expect, it } from 'vitest';
import { cache, ConfigError } from '../../../api/index.js';

describe('cache options', () => {
  it('retainMs may equal ttlMs + staleWhileRevalidateMs exactly', () => {
    expect(() => cache({ ttlMs: 100, staleWhileRevalidateMs: 50, retainMs: 150 })).not.toThrow();
    expect(() => cache({ ttlMs: 100, staleWhileRevalidateMs: 50, retainMs: 149 })).toThrow(ConfigError);
  });

  it('a store must have get, set and delete', () => {
    const ok = { get: async () => undefined, set: async () => {}, delete: async () => {} };
    expect(() => cache({ ttlMs: 10, store: ok })).not.toThrow();
    for (const missing of ['get', 'set', 'delete'] as const) {
      const bad = { ...ok, [missing]: undefined };
      expect(() => cache({ ttlMs: 10, store: bad as never })).toThrow(/store/);
    }
    expect(() => cache({ ttlMs: 10, store: null as never })).toThrow(ConfigError);
  });
});
