import { describe, expect, it } from 'vitest';
import { checkOptions } from '../../../lib/options.js';
import { TestClock } from '../../../lib/testing.js';
import { bulkheadOptions } from '../../../policies/bulkhead/options.js';
import { issuesOf } from '../../helpers/config-issues.js';

const check = (input: unknown) => checkOptions(bulkheadOptions, input, 'bulkhead');

describe('bulkheadOptions', () => {
  it('needs only the limit: no queue, named bulkhead', () => {
    expect(check({ limit: 4 })).toEqual({ limit: 4, queue: 0, reserve: { default: 0, sheddable: 0.1 }, partitionBy: 'criticality', name: 'bulkhead' });
    const clock = new TestClock();
    expect(check({ limit: 1, queue: 100, name: 'db', clock })).toEqual({ limit: 1, queue: 100, reserve: { default: 0, sheddable: 0.1 }, partitionBy: 'criticality', name: 'db', clock });
    const shares = { limit: 10, reserve: { default: 0.1, sheddable: 0.3 }, partitions: { live: 0.9, batch: 0.1 }, partitionBy: 'traffic' };
    expect(check(shares)).toEqual({ ...shares, queue: 0, name: 'bulkhead' });
  });

  it('limit is an integer >= 1 and required', () => {
    for (const bad of [undefined, 0, -2, 1.5, '4', Infinity]) {
      expect(issuesOf(() => check({ limit: bad }))).toEqual([{ path: 'limit', message: 'expected an integer >= 1' }]);
    }
  });

  it('queue is an integer >= 0', () => {
    for (const bad of [-1, 0.5, '10', null]) expect(issuesOf(() => check({ limit: 1, queue: bad }))).toEqual([{ path: 'queue', message: 'expected an integer >= 0' }]);
  });

  it('refuses unknown keys (maxConcurrent is limit) and lists every problem', () => {
    expect(issuesOf(() => check({ maxConcurrent: 4, queue: -1 }))).toEqual([
      { path: 'limit', message: 'expected an integer >= 1' },
      { path: 'queue', message: 'expected an integer >= 0' },
      { path: 'maxConcurrent', message: 'unknown option' },
    ]);
  });
});
