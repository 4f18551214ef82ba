import { Gauge, type Registry } from 'prom-client';
import type { LimiterFigures } from '../shared/limiters.js';
import { acquire, release } from './families.js';

type Labels = Record<string, string>;
/** One registration's limiters, set on a gauge when it is collected. */
type Feed = (gauge: Gauge, figure: 'limit' | 'inFlight') => void;

const feeds = new WeakMap<Gauge, Set<Feed>>();

/** A gauge whose value is read from the limiters of every registration sharing it, at each scrape. */
function liveGauge(registry: Registry, name: string, help: string, labelNames: string[], figure: 'limit' | 'inFlight'): Gauge {
  return acquire(registry, name, labelNames, () => {
    const gauge: Gauge = new Gauge({
      name,
      help,
      labelNames,
      registers: [registry],
      collect() {
        for (const feed of feeds.get(gauge) ?? []) feed(gauge, figure);
      },
    });
    feeds.set(gauge, new Set());
    return gauge;
  });
}

/**
 * Publishes `limiters` as `{prefix}concurrency_limit{policy}` and
 * `{prefix}concurrency_in_flight{policy}`, read live at each scrape; returns
 * what undoes it (the series go, and the gauges with the last registration
 * that shares them).
 */
export function registerLimiterGauges(registry: Registry, prefix: string, labelNames: string[], labelsOf: (policy: string) => Labels, limiters: readonly LimiterFigures[]): () => void {
  const names = [`${prefix}concurrency_limit`, `${prefix}concurrency_in_flight`];
  const gauges = [
    liveGauge(registry, names[0]!, 'Calls an adaptive concurrency limiter admits at once now.', labelNames, 'limit'),
    liveGauge(registry, names[1]!, 'Calls in flight under an adaptive concurrency limiter now.', labelNames, 'inFlight'),
  ];
  const series = limiters.map((l) => ({ limiter: l, labels: labelsOf(l.name) }));
  const feed: Feed = (gauge, figure) => {
    for (const s of series) gauge.set(s.labels, s.limiter[figure]);
  };
  for (const g of gauges) feeds.get(g)!.add(feed);
  return () => {
    for (const g of gauges) {
      feeds.get(g)!.delete(feed);
      for (const s of series) g.remove(s.labels);
    }
    for (const name of names) release(registry, name);
  };
}
