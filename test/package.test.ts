import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);

describe('the built package', () => {
  it('imports as ESM and requires as CJS, main and testing entries', async () => {
    const esm = await import('breakwater');
    const esmTesting = await import('breakwater/testing');
    const cjs = require('breakwater') as typeof esm;
    const cjsTesting = require('breakwater/testing') as typeof esmTesting;
    for (const mod of [esm, cjs]) {
      expect(typeof mod.policy).toBe('function');
      expect(typeof mod.pipe).toBe('function');
      expect(typeof mod.timeout).toBe('function');
      expect(typeof mod.retry).toBe('function');
      expect(typeof mod.fallback).toBe('function');
    }
    expect(typeof esmTesting.TestClock).toBe('function');
    expect(typeof cjsTesting.seededRandom).toBe('function');
    // errors from one copy are recognised by the guards of the other
    expect(cjs.isTimeoutError(new esm.TimeoutError('x'))).toBe(true);
    expect(esm.isTimeoutError(new cjs.TimeoutError('x'))).toBe(true);
  });

  it('runs a pipeline from the CJS build on the testing clock of the ESM build', async () => {
    const cjs = require('breakwater') as typeof import('breakwater');
    const { TestClock } = await import('breakwater/testing');
    const clock = new TestClock(1_000);
    const p = cjs.policy({ clock }).timeout(10).fallback(() => 'late');
    const r = p.execute(() => new Promise(() => {}));
    await clock.advance(10);
    await expect(r).resolves.toBe('late');
  });
});
