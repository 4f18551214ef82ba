import type { Registry } from 'prom-client';
import { ConfigError } from '../../lib/errors.js';

interface Family {
  readonly metric: unknown;
  readonly labelNames: string;
  refs: number;
}

const byRegistry = new WeakMap<Registry, Map<string, Family>>();

/**
 * The metric `name` of `registry`, made by `make` on first use and shared by
 * later registrations with the same label names (prom-client refuses a second
 * metric of one name). A metric of that name registered by someone else, or
 * with other label names, is a {@link ConfigError}.
 */
export function acquire<M>(registry: Registry, name: string, labelNames: readonly string[], make: () => M): M {
  let families = byRegistry.get(registry);
  if (families === undefined) byRegistry.set(registry, (families = new Map()));
  const labels = labelNames.join(',');
  const known = families.get(name);
  if (known !== undefined && registry.getSingleMetric(name) === known.metric) {
    if (known.labelNames !== labels) {
      throw new ConfigError('prometheus', [
        { path: 'labels', message: `metric ${name} is already registered with labels (${known.labelNames}), not (${labels})` },
      ]);
    }
    known.refs++;
    return known.metric as M;
  }
  if (registry.getSingleMetric(name) !== undefined) {
    throw new ConfigError('prometheus', [{ path: 'prefix', message: `metric ${name} is already registered by someone else` }]);
  }
  const metric = make();
  families.set(name, { metric, labelNames: labels, refs: 1 });
  return metric;
}

/** Drops one registration's hold on `name`; the last one removes the metric from the registry. */
export function release(registry: Registry, name: string): void {
  const families = byRegistry.get(registry);
  const known = families?.get(name);
  if (known === undefined || --known.refs > 0) return;
  families!.delete(name);
  if (registry.getSingleMetric(name) === known.metric) registry.removeSingleMetric(name);
}
