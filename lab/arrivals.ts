import type { Scenario } from './model.js';

/**
 * A's arrival times in a scenario with synchronized waves (`scenario.waves`): `poisson`'s arrivals outside the
 * fault, and during it `size` requests every `everyMs` from the fault's start, spread evenly over `withinMs`.
 * Without waves, `poisson` itself. Nothing random is drawn, so every row sees the same waves.
 */
export function withWaves(poisson: Float64Array, scenario: Scenario, durationMs: number): Float64Array {
  const w = scenario.waves;
  if (w === undefined) return poisson;
  const out: number[] = [];
  const end = Math.min(scenario.faultEndMs, durationMs);
  for (const t of poisson) if (t < scenario.faultStartMs || t >= end) out.push(t);
  for (let at = scenario.faultStartMs; at < end; at += w.everyMs)
    for (let j = 0; j < w.size; j++) {
      const t = at + (j * w.withinMs) / w.size;
      if (t < end) out.push(t);
    }
  return Float64Array.from(out).sort();
}
