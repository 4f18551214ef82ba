import { describe, expect, it } from 'vitest';
import { CLAIMS } from '../../lab/claims.js';
import { SCENARIOS } from '../../lab/model.js';
import { ROWS } from '../../lab/rows.js';
import { EXTRA_METRICS } from '../../lab/seeds.js';

describe('the claims', () => {
  it('have unique ids, and every one is checked (none waits for a scenario)', () => {
    expect(new Set(CLAIMS.map((c) => c.id)).size).toBe(CLAIMS.length);
    for (const c of CLAIMS) {
      expect(c.needs, c.id).toBeUndefined();
      expect(c.scenarios.length, c.id).toBeGreaterThan(0);
    }
  });

  it('read a figure beyond the common ones only where the scenario or the row records it', () => {
    const extra = new Set<string>(EXTRA_METRICS);
    for (const c of CLAIMS) {
      if (!extra.has(c.metric)) continue;
      for (const s of c.scenarios)
        for (const row of [c.strategy, ...(c.relativeTo === undefined ? [] : [c.relativeTo])]) {
          const recorded = [...(SCENARIOS[s].measures ?? []), ...ROWS[row].measures];
          expect(recorded, `${c.id}: ${row} in ${s}`).toContain(c.metric);
        }
    }
  });
});
