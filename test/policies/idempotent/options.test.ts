import { describe, expect, it } from 'vitest';
import { checkOptions } from '../../../lib/options.js';
import { TestClock } from '../../../lib/testing.js';
import { jsonIdempotencyCodec } from '../../../policies/idempotent/codec.js';
import { memoryStore } from '../../../policies/idempotent/memory-store.js';
import { idempotentOptions } from '../../../policies/idempotent/options.js';
import { issuesOf } from '../../helpers/config-issues.js';

const check = (input: unknown) => checkOptions(idempotentOptions, input, 'idempotent');
const MS = 'expected a finite number of milliseconds';

describe('idempotentOptions', () => {
  it('accepts nothing: records kept a day, 30 s leases not renewed, waiting on runs in flight every 100 ms, store calls cut at 1 s, failing closed', () => {
    expect(check({})).toEqual({
      ttlMs: 86_400_000,
      leaseMs: 30_000,
      renewLease: false,
      onInProgress: 'wait',
      pollMs: 100,
      storeTimeoutMs: 1_000,
      failOpen: false,
      name: 'idempotent',
    });
  });

  it('accepts every option in its documented form', () => {
    const clock = new TestClock();
    const store = memoryStore({ clock });
    const key = () => 'k';
    const handleResult = () => false;
    const all = {
      store,
      key,
      ttlMs: 60_000,
      leaseMs: 5_000,
      renewLease: true,
      onInProgress: 'reject',
      pollMs: 10,
      codec: jsonIdempotencyCodec,
      storeTimeoutMs: 200,
      failOpen: true,
      handleResult,
      name: 'payments',
      clock,
    };
    expect(check(all)).toEqual(all);
  });

  it('every duration is milliseconds above zero', () => {
    for (const key of ['ttlMs', 'leaseMs', 'pollMs', 'storeTimeoutMs']) {
      expect(issuesOf(() => check({ [key]: 0 }))).toEqual([{ path: key, message: 'expected a number greater than 0' }]);
      expect(issuesOf(() => check({ [key]: '1s' }))).toEqual([{ path: key, message: MS }]);
    }
  });

  it('renewLease and failOpen are booleans; onInProgress wait or reject', () => {
    expect(issuesOf(() => check({ renewLease: 'yes' }))).toEqual([{ path: 'renewLease', message: 'expected a boolean' }]);
    expect(issuesOf(() => check({ failOpen: 1 }))).toEqual([{ path: 'failOpen', message: 'expected a boolean' }]);
    expect(issuesOf(() => check({ onInProgress: 'poll' }))).toEqual([{ path: 'onInProgress', message: 'Invalid option: expected one of "wait"|"reject"' }]);
  });

  it('store, codec, key and handleResult are checked by shape; unknown keys refused', () => {
    expect(issuesOf(() => check({ store: new Map() }))).toEqual([
      { path: 'store', message: 'expected an IdempotencyStore (claim, complete, completeNotStorable, release)' },
    ]);
    expect(issuesOf(() => check({ codec: JSON }))).toEqual([{ path: 'codec', message: 'expected a codec { encode, decode }' }]);
    expect(issuesOf(() => check({ key: 'order-1' }))).toEqual([{ path: 'key', message: 'expected a function' }]);
    expect(issuesOf(() => check({ handleResult: true }))).toEqual([{ path: 'handleResult', message: 'expected a function' }]);
    expect(issuesOf(() => check({ lease: 1 }))).toEqual([{ path: 'lease', message: 'unknown option' }]);
  });
});
