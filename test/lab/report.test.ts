import { existsSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { chartId, CHARTS, chartsOf, htmlReport } from '../../lab/report.js';
import { runLab } from '../../lab/run.js';

const CHROMIUM = '/usr/bin/chromium';
const results = await runLab({ rows: ['baseline', 'standard'], scenarios: ['hardOutage', 'capacityDrop'], seeds: [1], durationMs: 120_000 });
const html = await htmlReport(results);

describe('the HTML report', () => {
  it('is self-contained: every chart an inline SVG with its lines drawn, and no script', () => {
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/(src|href)="https?:/i);
    const figures = [...html.matchAll(/<figure class="chart" data-chart="(\w+)">([\s\S]*?)<\/figure>/g)];
    expect(figures).toHaveLength(results.scenarios.length * CHARTS.length);
    for (const [, key, body] of figures) {
      expect(body!.startsWith('<svg'), key).toBe(true);
      // the rows' lines, in the rows' colour, with segments (steps written as H and V)
      const lines = [...body!.matchAll(/<path d="M([^"]*)"[^>]*stroke="#1565c0"/g)].filter((m) => m[1]!.split(/[HVL]/).length > 1).length;
      expect(lines, key).toBeGreaterThan(0);
      expect(body).toContain('simulated time (s)');
    }
  });
});

describe('the charts rendered ahead', () => {
  it('are the very charts the report draws, and the report embeds those it is given', async () => {
    const charts = await chartsOf(results);
    expect([...charts.keys()]).toEqual(results.scenarios.flatMap((s) => CHARTS.map((c) => chartId(s.name, c.key))));
    const drawn = [...html.matchAll(/<figure class="chart" data-chart="\w+">([\s\S]*?)<\/figure>/g)].map((m) => m[1]);
    expect([...charts.values()]).toEqual(drawn);
    const marked = await htmlReport(results, undefined, undefined, new Map([[chartId('capacityDrop', 'held'), '<svg id="given"></svg>']]));
    expect(marked).toContain('<figure class="chart" data-chart="held"><svg id="given"></svg></figure>');
    expect(marked.replace('<svg id="given"></svg>', charts.get(chartId('capacityDrop', 'held'))!)).toBe(html);
  });
});

const required = process.env.BREAKWATER_REQUIRE_CHROMIUM === '1';
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium && !required) console.log(`SKIP report screenshot: ${CHROMIUM} not found (apt-get install -y chromium; BREAKWATER_REQUIRE_CHROMIUM=1 makes this a failure)`);

describe.skipIf(!hasChromium && !required)('the HTML report in headless Chromium', () => {
  it('draws every chart', async () => {
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    try {
      const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
      await page.setContent(html);
      const boxes = await page.$$eval('figure.chart > svg', (svgs) =>
        svgs.map((s) => {
          const r = s.getBoundingClientRect();
          return { w: r.width, h: r.height, paths: s.querySelectorAll('path').length };
        }),
      );
      expect(boxes).toHaveLength(results.scenarios.length * CHARTS.length);
      for (const b of boxes) {
        expect(b.w).toBeGreaterThan(300);
        expect(b.h).toBeGreaterThan(100);
        expect(b.paths).toBeGreaterThan(1);
      }
      const png = await page.screenshot({ fullPage: true });
      expect(png.subarray(1, 4).toString()).toBe('PNG');
      expect(png.length).toBeGreaterThan(20_000);
      if (process.env.BREAKWATER_LAB_SCREENSHOT) writeFileSync(process.env.BREAKWATER_LAB_SCREENSHOT, png);
    } finally {
      await browser.close();
    }
  }, 60_000);
});
