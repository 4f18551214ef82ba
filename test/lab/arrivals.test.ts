import { describe, expect, it } from 'vitest';
import { withWaves } from '../../lab/arrivals.js';
import { SCENARIOS } from '../../lab/model.js';
import { arrivalTimes } from '../../lab/simulate.js';

describe('A’s arrivals in synchronized waves', () => {
  const waves = SCENARIOS.waves;
  const poisson = arrivalTimes(1, 100_000);

  it('replace the Poisson arrivals of the fault by waves of `size` requests every `everyMs`, spread over `withinMs`', () => {
    const a = withWaves(poisson, waves, 100_000);
    const { everyMs, size, withinMs } = waves.waves!;
    const inFault = Array.from(a).filter((t) => t >= waves.faultStartMs && t < waves.faultEndMs);
    // 30 s of waves every 400 ms: 75 waves of 80 requests
    expect(inFault).toHaveLength(((waves.faultEndMs - waves.faultStartMs) / everyMs) * size);
    for (const t of inFault) expect((t - waves.faultStartMs) % everyMs).toBeLessThan(withinMs);
    // the first wave: 80 requests 0.125 ms apart from the fault's start
    expect(inFault.slice(0, 3)).toEqual([30_000, 30_000.125, 30_000.25]);
    // outside the fault: the Poisson arrivals, untouched and in order
    expect(Array.from(a).filter((t) => t < waves.faultStartMs || t >= waves.faultEndMs)).toEqual(Array.from(poisson).filter((t) => t < waves.faultStartMs || t >= waves.faultEndMs));
    for (let i = 1; i < a.length; i++) expect(a[i]!).toBeGreaterThanOrEqual(a[i - 1]!);
  });

  it('keep A’s mean load: 80 requests every 400 ms is 200 a second', () => {
    expect((waves.waves!.size * 1_000) / waves.waves!.everyMs).toBe(200);
  });

  it('end with the run when the run ends inside the fault', () => {
    const a = withWaves(arrivalTimes(1, 31_000), waves, 31_000);
    expect(a[a.length - 1]!).toBeLessThan(31_000);
    // waves at 30.0, 30.4 and 30.8 s
    expect(Array.from(a).filter((t) => t >= 30_000)).toHaveLength(3 * 80);
  });

  it('leave a scenario without waves as it is: the same array', () => {
    expect(withWaves(poisson, SCENARIOS.hardOutage, 100_000)).toBe(poisson);
  });
});
