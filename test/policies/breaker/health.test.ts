import { describe, expect, it } from 'vitest';
import { policy } from '../../../api/builder.js';
import { TestClock } from '../../../lib/testing.js';
import { healthReport } from '../../../policies/breaker/health.js';
import { breakerRegistry, keyedBreaker } from '../../../policies/breaker-registry/index.js';

const fail = async (): Promise<never> => {
  throw new Error('down');
};

describe('healthReport', () => {
  it('collects every breaker of a pipeline, a keyed breaker’s by key, and says degraded while one sheds', async () => {
    const clock = new TestClock();
    const hosts = keyedBreaker((ctx) => ctx.meta['host']!, { name: 'hosts', defaults: { trip: 'consecutiveFailures', threshold: 1 }, clock });
    const p = policy({ clock })
      .use(hosts)
      .circuitBreaker({ name: 'payments', trip: 'consecutiveFailures', threshold: 5 })
      .retry({ maxAttempts: 1 });
    await p.execute(async () => 'ok', { meta: { host: 'a' } });
    expect(healthReport(p)).toMatchObject({
      status: 'up',
      breakers: [
        { name: 'hosts:a', state: 'closed', control: 'enforcing' },
        { name: 'payments', state: 'closed', control: 'enforcing' },
      ],
    });
    await p.execute(fail, { meta: { host: 'b' } }).catch(() => undefined);
    const report = healthReport(p);
    expect(report.status).toBe('degraded');
    expect(report.breakers.map((b) => `${b.name} ${b.state}`)).toEqual(['hosts:a closed', 'hosts:b open', 'payments closed']);
  });

  it('counts a breaker let through by disabled or metricsOnly as up, and a forced open one as degraded', async () => {
    const clock = new TestClock();
    const registry = breakerRegistry({ name: 'r', defaults: { trip: 'consecutiveFailures', threshold: 1 }, clock });
    await registry.get('x').execute(fail).catch(() => undefined);
    expect(healthReport(registry).status).toBe('degraded');
    registry.setControl('metricsOnly');
    expect(healthReport(registry)).toMatchObject({ status: 'up', breakers: [{ name: 'r:x', state: 'open', control: 'metricsOnly' }] });
    registry.setControl('disabled');
    expect(healthReport(registry).status).toBe('up');
    registry.setControl('forcedOpen');
    expect(healthReport(registry).status).toBe('degraded');
    // a breaker made later takes the registry's control
    expect(registry.get('y').control).toBe('forcedOpen');
    registry.setControl('enforcing');
    expect(healthReport(registry)).toMatchObject({ status: 'up', breakers: [{ name: 'r:x', state: 'closed' }, { name: 'r:y', state: 'closed' }] });
  });

  it('reports up with no breakers at all', () => {
    expect(healthReport(policy().retry({ maxAttempts: 2 }))).toEqual({ status: 'up', breakers: [] });
  });
});
