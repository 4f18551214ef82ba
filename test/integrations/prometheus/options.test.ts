import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { parseOptions } from '../../../lib/schemas.js';
import { PrometheusOptionsSchema } from '../../../integrations/prometheus/options.js';
import { issuesOf } from '../../helpers/config-issues.js';

const check = (input: unknown) => parseOptions(PrometheusOptionsSchema, input, 'registerMetrics');

describe('PrometheusOptionsSchema', () => {
  it('accepts nothing: the breakwater_ prefix, no constant labels, no gobreaker aliases, no key label', () => {
    expect(check({})).toEqual({ prefix: 'breakwater_', labels: {}, gobreakerAliases: false, perKey: false });
  });

  it('accepts every option in its documented form; an empty prefix drops the namespace', () => {
    const registry = new Registry();
    const all = { registry, prefix: 'myapp_', labels: { service: 'checkout', zone_1: 'a' }, buckets: [0.1, 1], gobreakerAliases: true, perKey: true };
    expect(check(all)).toEqual(all);
    expect(check({ prefix: '' }).prefix).toBe('');
    expect(check({ prefix: 'a:b_' }).prefix).toBe('a:b_');
  });

  it('registry must be a prom-client Registry', () => {
    expect(issuesOf(() => check({ registry: {} }))).toEqual([{ path: 'registry', message: 'expected a prom-client Registry' }]);
  });

  it('prefix must start a Prometheus metric name', () => {
    for (const bad of ['1app_', 'my-app_', 'my app']) expect(issuesOf(() => check({ prefix: bad }))).toEqual([{ path: 'prefix', message: 'expected a Prometheus metric name prefix' }]);
  });

  it('labels are free Prometheus label names with string values; the ones breakwater uses are taken', () => {
    for (const taken of ['policy', 'result', 'state', 'name', 'key', 'le']) {
      expect(issuesOf(() => check({ labels: { [taken]: 'x' } }))).toEqual([{ path: `labels.${taken}`, message: 'expected a free Prometheus label name' }]);
    }
    expect(issuesOf(() => check({ labels: { 'a-b': 'x', ok: 'y', '9z': 'z' } }))).toEqual([
      { path: 'labels.a-b', message: 'expected a free Prometheus label name' },
      { path: 'labels.9z', message: 'expected a free Prometheus label name' },
    ]);
    expect(issuesOf(() => check({ labels: { service: 1 } })).map((i) => i.path)).toEqual(['labels.service']);
  });

  it('buckets are increasing positive bounds; the switches are booleans; unknown keys refused', () => {
    expect(issuesOf(() => check({ buckets: [1, 0.5] }))).toEqual([{ path: 'buckets', message: 'expected increasing bucket bounds' }]);
    expect(issuesOf(() => check({ gobreakerAliases: 'yes' })).map((i) => i.path)).toEqual(['gobreakerAliases']);
    expect(issuesOf(() => check({ perKey: 1 })).map((i) => i.path)).toEqual(['perKey']);
    expect(issuesOf(() => check({ namespace: 'x_' }))).toEqual([{ path: 'namespace', message: 'unknown option' }]);
  });
});
