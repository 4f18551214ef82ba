import { describe, expect, it } from 'vitest';
import { cache, ConfigError } from '../../../api/index.js';
import { checkOptions } from '../../../lib/options.js';
import { TestClock } from '../../../lib/testing.js';
import { cacheOptions, isCacheStore } from '../../../policies/cache/options.js';
import { issuesOf } from '../../helpers/config-issues.js';

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

describe('cacheOptions', () => {
  const check = (input: unknown) => checkOptions(cacheOptions, input, 'cache');
  const store = { get: async () => undefined, set: async () => {}, delete: async () => {} };

  it('needs only ttlMs: no stale window, kept until evicted, named cache', () => {
    expect(check({ ttlMs: 1_000 })).toEqual({ ttlMs: 1_000, staleWhileRevalidateMs: 0, retainMs: Infinity, name: 'cache' });
  });

  it('accepts every option in its documented form', () => {
    const clock = new TestClock();
    const key = () => 'k';
    const handleResult = () => false;
    const all = { ttlMs: 100, staleWhileRevalidateMs: 50, retainMs: 150, store, key, handleResult, name: 'users', clock };
    expect(check(all)).toEqual(all);
  });

  it('ttlMs is milliseconds above zero; the stale window milliseconds >= 0', () => {
    expect(issuesOf(() => check({}))).toEqual([{ path: 'ttlMs', message: 'expected a finite number of milliseconds' }]);
    expect(issuesOf(() => check({ ttlMs: 0 }))).toEqual([{ path: 'ttlMs', message: 'expected a number greater than 0' }]);
    expect(issuesOf(() => check({ ttlMs: 1, staleWhileRevalidateMs: -1 }))).toEqual([{ path: 'staleWhileRevalidateMs', message: 'expected a number >= 0' }]);
  });

  it('retainMs is above zero, Infinity allowed, and at least ttlMs + staleWhileRevalidateMs', () => {
    expect(check({ ttlMs: 10, retainMs: Infinity }).retainMs).toBe(Infinity);
    expect(issuesOf(() => check({ ttlMs: 10, retainMs: 0 }))).toEqual([{ path: 'retainMs', message: 'expected a number of milliseconds > 0' }]);
    expect(issuesOf(() => check({ ttlMs: 10, retainMs: '1h' }))).toEqual([{ path: 'retainMs', message: 'expected a number of milliseconds > 0' }]);
    expect(issuesOf(() => check({ ttlMs: 100, staleWhileRevalidateMs: 50, retainMs: 120 }))).toEqual([
      { path: 'retainMs', message: 'retainMs must be >= ttlMs + staleWhileRevalidateMs' },
    ]);
    // with no stale window, retainMs only has to reach ttlMs
    expect(issuesOf(() => check({ ttlMs: 100, retainMs: 99 }))).toEqual([{ path: 'retainMs', message: 'retainMs must be >= ttlMs + staleWhileRevalidateMs' }]);
    expect(check({ ttlMs: 100, retainMs: 100 }).retainMs).toBe(100);
  });

  it('store, key and handleResult are checked; unknown keys refused', () => {
    expect(issuesOf(() => check({ ttlMs: 1, store: { get: () => undefined } }))).toEqual([{ path: 'store', message: 'expected a CacheStore (get, set, delete)' }]);
    expect(issuesOf(() => check({ ttlMs: 1, key: 'user:1' }))).toEqual([{ path: 'key', message: 'expected a function' }]);
    expect(issuesOf(() => check({ ttlMs: 1, handleResult: {} }))).toEqual([{ path: 'handleResult', message: 'expected a function' }]);
    expect(issuesOf(() => check({ ttlMs: 1, ttl: 5 }))).toEqual([{ path: 'ttl', message: 'unknown option' }]);
  });
});

describe('isCacheStore', () => {
  it('wants get, set and delete functions on an object', () => {
    const ok = { get: () => undefined, set: () => undefined, delete: () => undefined };
    expect(isCacheStore(ok)).toBe(true);
    expect(isCacheStore({ ...ok, delete: 'x' })).toBe(false);
    expect(isCacheStore(new Map())).toBe(true); // a Map has all three: the shape is what counts
    expect(isCacheStore(null)).toBe(false);
    expect(isCacheStore(undefined)).toBe(false);
  });
});
