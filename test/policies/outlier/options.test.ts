import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../lib/errors.js';
import { outlierDetection } from '../../../policies/outlier/index.js';
import { TestClock } from '../../../lib/testing.js';

describe('outlierDetection options', () => {
  it('refuses bad options with a ConfigError naming each', () => {
    const bad = (o: object): string => {
      try {
        outlierDetection(o as never);
      } catch (e) {
        expect(e).toBeInstanceOf(ConfigError);
        return (e as ConfigError).issues.map((i) => `${i.path}: ${i.message}`).join('; ');
      }
      return 'accepted';
    };
    expect(bad({ hosts: [] })).toBe('hosts: expected at least one host');
    expect(bad({ hosts: ['a', ''] })).toBe('hosts[1]: expected a host name (a non-empty string)');
    expect(bad({ hosts: ['a'], consecutiveFailures: 0 })).toMatch(/^consecutiveFailures: /);
    expect(bad({ hosts: ['a'], baseEjectionMs: -1 })).toMatch(/^baseEjectionMs: /);
    expect(bad({ hosts: ['a'], maxEjectionPercent: 101 })).toBe('maxEjectionPercent: expected a number from 0 to 100');
    expect(bad({ hosts: ['a'], intervalMs: 0 })).toMatch(/^intervalMs: /);
    expect(bad({ hosts: ['a'], hosts2: 1 })).toMatch(/^hosts2: /);
    expect(bad({})).toMatch(/^hosts: /);
  });

  it('takes the defaults of Envoy', async () => {
    const clock = new TestClock();
    const p = outlierDetection({ hosts: Array.from({ length: 10 }, (_, i) => `h${i}`), clock });
    expect(p.maxEjected).toBe(1);
    expect(p.hostKey).toBe('host');
    for (let i = 0; i < 5; i++) await p.execute(async () => Promise.reject(new Error('x')), { meta: { host: 'h0' } }).catch(() => undefined);
    expect(p.status()[0]).toMatchObject({ ejected: true, returnsAt: 30_000 });
  });
});
