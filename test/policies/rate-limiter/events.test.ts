import { describe, expect, it } from 'vitest';
import { rateLimiter, type LimiterHost, type RateAlgorithm } from '../../../api/index.js';
import { collect } from '../../helpers/breakers.js';

describe('LocalFallbackEvent', () => {
  it('is attached to its algorithm once and reports localFallback with its flag and error', () => {
    const hosts: LimiterHost[] = [];
    const algorithm: RateAlgorithm = { kind: 'custom', acquire: () => 0, attach: (h) => void hosts.push(h) };
    const limiter = rateLimiter({ algorithm, name: 'shared' });
    expect(hosts).toEqual([limiter]);
    const events = collect(limiter);
    const error = new Error('redis down');
    hosts[0]!.localFallback(true, error);
    hosts[0]!.localFallback(false);
    expect(events).toEqual([
      { type: 'localFallback', policy: 'shared', active: true, error },
      { type: 'localFallback', policy: 'shared', active: false, error: undefined },
    ]);
  });
});
