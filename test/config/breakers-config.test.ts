import { BehaviorSubject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { CircuitBreakerPolicy, ConfigError, KeyedBreakerPolicy, SreBreakerPolicy, type PolicyEvent } from '../../api/index.js';
import { fromConfig } from '../../api/config.js';
import { TestClock } from '../../lib/testing.js';

const START = 1_700_000_000_000;
const fail = () => Promise.reject(new Error('down'));

describe('breakers from config', () => {
  it('builds both families and keyed breakers from JSON', () => {
    const p = fromConfig(
      JSON.parse(`{ "policies": [
        { "type": "sreBreaker", "k": 2 },
        { "type": "circuitBreaker", "strategy": "errorRatio", "threshold": 0.4, "minRequests": 10 },
        { "type": "circuitBreaker", "strategy": "custom", "readyToTrip": "trip" },
        { "type": "keyedBreaker", "metaKey": "method", "defaults": { "strategy": "consecutiveFailures", "threshold": 3 } }
      ] }`),
      { trip: () => false },
    );
    const [sre, ratio, custom, keyed] = p.pipeline.policies;
    expect(sre).toBeInstanceOf(SreBreakerPolicy);
    expect(ratio).toBeInstanceOf(CircuitBreakerPolicy);
    expect(custom).toBeInstanceOf(CircuitBreakerPolicy);
    expect(keyed).toBeInstanceOf(KeyedBreakerPolicy);
  });

  it('validates breaker options with paths', () => {
    try {
      fromConfig({ policies: [{ type: 'circuitBreaker', strategy: 'errorRatio', threshold: 1.5 }, { type: 'sreBreaker', k: 1, minK: 1.1 }, { type: 'circuitBreaker', strategy: 'magic' }] });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      const paths = (e as ConfigError).issues.map((i) => i.path);
      expect(paths).toEqual(expect.arrayContaining(['policies[0].threshold', 'policies[1].k', 'policies[2].strategy']));
    }
  });

  it('hot reload: a threshold changed mid-run takes effect on the next call and the window counts survive', async () => {
    const clock = new TestClock(START);
    const configs = new BehaviorSubject<unknown>({
      policies: [{ type: 'circuitBreaker', strategy: 'errorCount', threshold: 10, minRequests: 1, windowMs: 10_000 }],
    });
    const p = fromConfig(configs, {}, { clock });
    const b = p.pipeline.policies[0] as CircuitBreakerPolicy;
    const changes: PolicyEvent[] = [];
    p.events$.subscribe((e) => e.type === 'stateChange' && changes.push(e));
    for (let i = 0; i < 4; i++) await p.execute(fail).catch(() => undefined);
    expect(b.state).toBe('closed');
    expect(b.stats().failures).toBe(4);
    configs.next({ policies: [{ type: 'circuitBreaker', strategy: 'errorCount', threshold: 5, minRequests: 1, windowMs: 10_000 }] });
    expect(b.stats().failures).toBe(4);
    await p.execute(fail).catch(() => undefined);
    expect(b.state).toBe('open');
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({ from: 'closed', to: 'open', figure: 5 });
  });

  it('refuses a change of window shape in place and keeps the breaker', async () => {
    const clock = new TestClock(START);
    const configs = new BehaviorSubject<unknown>({ policies: [{ type: 'sreBreaker' }] });
    const p = fromConfig(configs, {}, { clock });
    const rejected: PolicyEvent[] = [];
    p.events$.subscribe((e) => e.type === 'configRejected' && rejected.push(e));
    configs.next({ policies: [{ type: 'sreBreaker', windowMs: 5_000 }] });
    expect(rejected).toHaveLength(1);
    expect(rejected[0]).toMatchObject({ reason: 'invalid', issues: [{ path: 'policies[0].windowMs' }] });
  });

  it('control: set at build, changed in place by a reload (the window survives), back to enforcing when removed', async () => {
    const clock = new TestClock(START);
    const entry = { type: 'circuitBreaker', strategy: 'errorCount', threshold: 2, minRequests: 1, windowMs: 10_000 };
    const configs = new BehaviorSubject<unknown>({ policies: [{ ...entry, control: 'metricsOnly' }] });
    const p = fromConfig(configs, {}, { clock });
    const b = p.pipeline.policies[0] as CircuitBreakerPolicy;
    expect(b.control).toBe('metricsOnly');
    for (let i = 0; i < 3; i++) await p.execute(fail).catch(() => undefined);
    expect(b.state).toBe('open');
    await expect(p.execute(async () => 'passes in shadow')).resolves.toBe('passes in shadow');
    configs.next({ policies: [{ ...entry, control: 'forcedOpen' }] });
    expect(p.pipeline.policies[0]).toBe(b);
    expect(b.control).toBe('forcedOpen');
    configs.next({ policies: [entry] });
    expect(b.control).toBe('enforcing');
    expect(p.pipeline.policies[0]).toBe(b);
  });

  it('control: a keyed breaker takes it for every key, and a bad one is refused naming it', () => {
    const p = fromConfig({ policies: [{ type: 'keyedBreaker', metaKey: 'host', control: 'disabled' }] });
    expect((p.pipeline.policies[0] as unknown as { control: string }).control).toBe('disabled');
    try {
      fromConfig({ policies: [{ type: 'sreBreaker', control: 'off' }] });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      expect((e as ConfigError).issues.map((i) => i.path)).toEqual(['policies[0].control']);
    }
  });
});
