import { Counter, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { acquire, release } from '../../../integrations/prometheus/families.js';
import { ConfigError } from '../../../lib/errors.js';

const counter = (registry: Registry, name: string, labelNames: string[]) => () => new Counter({ name, help: name, labelNames, registers: [registry] });

describe('metric families shared by registrations', () => {
  it('makes the metric once and shares it with later registrations of the same labels; the last release removes it', () => {
    const registry = new Registry();
    let made = 0;
    const make = () => (made++, counter(registry, 'calls_total', ['policy'])());
    const a = acquire(registry, 'calls_total', ['policy'], make);
    const b = acquire(registry, 'calls_total', ['policy'], make);
    expect(b).toBe(a);
    expect(made).toBe(1);
    release(registry, 'calls_total');
    expect(registry.getSingleMetric('calls_total')).toBe(a);
    release(registry, 'calls_total');
    expect(registry.getSingleMetric('calls_total')).toBeUndefined();
    // made again after the last release
    acquire(registry, 'calls_total', ['policy'], make);
    expect(made).toBe(2);
  });

  it('other label names for a shared metric, or a metric someone else registered, are ConfigErrors', () => {
    const registry = new Registry();
    acquire(registry, 'calls_total', ['policy'], counter(registry, 'calls_total', ['policy']));
    expect(() => acquire(registry, 'calls_total', ['policy', 'result'], counter(registry, 'calls_total', ['policy', 'result']))).toThrow(ConfigError);
    expect(() => acquire(registry, 'calls_total', ['policy', 'result'], () => undefined)).toThrow(
      'metric calls_total is already registered with labels (policy), not (policy,result)',
    );
    counter(registry, 'theirs_total', [])();
    expect(() => acquire(registry, 'theirs_total', [], () => undefined)).toThrow('metric theirs_total is already registered by someone else');
  });

  it('registries are separate; a release of an unknown name does nothing', () => {
    const one = new Registry();
    const two = new Registry();
    const a = acquire(one, 'm_total', [], counter(one, 'm_total', []));
    const b = acquire(two, 'm_total', [], counter(two, 'm_total', []));
    expect(b).not.toBe(a);
    release(two, 'nothing');
    release(new Registry(), 'm_total');
    expect(one.getSingleMetric('m_total')).toBe(a);
    expect(two.getSingleMetric('m_total')).toBe(b);
  });
});
