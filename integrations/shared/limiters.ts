import type { Observed } from './observed.js';

/** What the metrics read of an adaptive concurrency limiter: its name, its current limit and its calls in flight. */
export interface LimiterFigures {
  readonly name: string;
  readonly limit: number;
  readonly inFlight: number;
}

/**
 * The adaptive concurrency limiters among `target` (itself, or a
 * pipeline's policies): each has a numeric `limit` and `inFlight`, read
 * live when the metrics are collected.
 */
export function limitersOf(target: Observed): LimiterFigures[] {
  const members = target.policies ?? [target];
  const out: LimiterFigures[] = [];
  for (const p of members) {
    const l = p as Partial<LimiterFigures> | undefined;
    if (l !== undefined && typeof l.name === 'string' && typeof l.limit === 'number' && typeof l.inFlight === 'number') out.push(l as LimiterFigures);
  }
  return out;
}
