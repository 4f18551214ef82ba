import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { availabilitySection, phaseDiagram, phaseSection, retrySection, rtoSection, slaSection } from '../../lab/sla-section.js';
import { METRICS, type SeedFile, type Value } from '../../lab/seeds.js';

// recovery 1 s, amplification and p99 as given; rtoMax for a breaker row
const vector = (amplification: number, rtoMaxS?: number | null): Value[] => {
  const v: Value[] = METRICS.slice(0, 11).map((m) => (m === 'amplification' ? amplification : m === 'recoveryS' ? 1 : m === 'p99Ms' ? 300 : 1));
  if (rtoMaxS !== undefined) v.push(rtoMaxS);
  return v;
};

const file: SeedFile = {
  command: 'test',
  durationMs: 180_000,
  seeds: [1, 2],
  scenarios: ['hardOutage'],
  rows: ['failFast', 'budgetedRetry'],
  metrics: METRICS,
  runs: {
    '1': { hardOutage: { failFast: vector(0.1, 1.5), budgetedRetry: vector(1.1) } },
    '2': { hardOutage: { failFast: vector(0.1, null), budgetedRetry: vector(1.2) } },
  },
};

describe('rtoSection', () => {
  it('gives the check’s line and the scatter, saying how many cells it could not draw', async () => {
    const html = await rtoSection(file);
    expect(html).toContain('holds in 2 of 2 cells');
    expect(html).toContain('2 cells, seeds 1–2; 1 with an infinite bound or recovery not drawn</tspan>');
    expect(html).toContain('data-chart="rtoScatter"><svg');
  });
});

describe('retrySection', () => {
  it('gives one table line per retrying row and fault that ran', () => {
    const html = retrySection(file);
    expect([...html.matchAll(/<tr><td>/g)]).toHaveLength(1);
    expect(html).toContain('<td>budgetedRetry</td><td>hard outage</td><td>aggregate (budget)</td><td>1.15</td><td>1.150</td><td>1.200</td><td>1/2</td>');
  });
});

describe('availabilitySection', () => {
  it('gives one line per chain, row and scenario that recorded its hops', () => {
    const hops = (v: Value[], b: number, c: number, whole: number): Value[] => {
      const out = [...v];
      while (out.length < METRICS.length) out.push('-');
      out[METRICS.indexOf('hopB')] = b;
      out[METRICS.indexOf('hopC')] = c;
      out[METRICS.indexOf('realBuckets')] = whole;
      return out;
    };
    const withHops: SeedFile = {
      ...file,
      runs: {
        '1': { hardOutage: { failFast: hops(vector(0.1, 1.5), 0.8, 0.5, 0.45), budgetedRetry: vector(1.1) } },
        '2': { hardOutage: { failFast: hops(vector(0.1, null), 0.8, 0.5, 0.5), budgetedRetry: vector(1.2) } },
      },
    };
    const html = availabilitySection(withHops);
    expect([...html.matchAll(/<tr><td>/g)]).toHaveLength(1);
    // measured 45 % and 50 %; β = 0: 40 %; fitted β 0.5 and 1; each seed predicted with the other's: 50 % (+5 pp), 45 % (−5 pp)
    expect(html).toContain('<td>A → B → C</td><td>hard outage</td><td>failFast</td><td>47.50 %</td><td>40.00 %</td><td>−7.5&nbsp;pp</td><td>0.75</td><td>47.50 %</td><td>+0.0&nbsp;pp</td>');
  });
});

describe('phaseSection', () => {
  it('inlines the picture made small, or says it is missing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'phase-'));
    try {
      const path = join(dir, 'sweep.svg');
      writeFileSync(path, '<svg><rect aria-label="cell" x="1.2345"/></svg>\n');
      const svg = phaseDiagram(path);
      expect(svg).toBe('<svg><rect x="1.2"/></svg>');
      expect(phaseSection(svg)).toContain('<figure class="sla" data-chart="phase"><svg><rect x="1.2"/></svg></figure>');
      expect(phaseDiagram(join(dir, 'none.svg'))).toBeUndefined();
      expect(phaseSection(undefined)).toContain('Not drawn');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('slaSection', () => {
  it('holds every check', async () => {
    const html = await slaSection(file);
    for (const id of ['sla', 'rto-max', 'availability', 'retry-budget', 'dynamic-threshold']) expect(html).toContain(`id="${id}"`);
  });
});
