import { describe, expect, it } from 'vitest';
import type { RtoCell } from '../../lab/rto-check.js';
import { rtoScatter, rtoScatterSvg, slimSvg } from '../../lab/rto-scatter.js';

const cell = (recoveryS: number | null, rtoMaxS?: number | null): RtoCell => ({ figures: { recoveryS, ...(rtoMaxS === undefined ? {} : { rto: { rtoMaxS } }) } });

describe('rtoScatter', () => {
  it('groups the breaker cells by their (measured, bound) pair, counts the infinite ones apart, and skips rows without a bound', () => {
    const s = rtoScatter([cell(0, 0.33), cell(0.04, 0.3), cell(2, 5), cell(null, 5), cell(1, null), cell(4)]);
    expect(s.points).toEqual([
      { measuredS: 0, boundS: 0.3, cells: 2 },
      { measuredS: 2, boundS: 5, cells: 1 },
    ]);
    expect(s.infinite).toBe(2);
  });
});

describe('rtoScatterSvg', () => {
  it('draws one circle per point and both reference lines, without vega’s aria descriptions', async () => {
    const svg = await rtoScatterSvg({ points: [{ measuredS: 0, boundS: 0.3, cells: 4 }, { measuredS: 2, boundS: 5, cells: 1 }, { measuredS: 8, boundS: 3, cells: 1 }], infinite: 0 }, 'crafted');
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg).toContain('y = x');
    expect(svg).toContain('y = 2x');
    expect(svg).toContain('crafted');
    expect(svg).not.toContain('aria-label');
    // vega draws a circle mark as a path with an arc
    expect([...svg.matchAll(/<path transform="translate\([^)]*\)" d="M[^"]*A/g)].length).toBeGreaterThanOrEqual(3);
  });
});

describe('slimSvg', () => {
  it('drops aria labels and rounds coordinates to 0.1', () => {
    expect(slimSvg('<g aria-label="a cell"><rect x="1.23456" y="2"/></g>')).toBe('<g><rect x="1.2" y="2"/></g>');
  });
});
