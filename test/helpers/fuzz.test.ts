import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FUZZ_SEED } from './fuzz.js';

const TEST = resolve(import.meta.dirname, '..');

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

describe('fuzz settings', () => {
  it('every property runs on FUZZ_SEED', () => {
    expect(fc.readConfigureGlobal().seed).toBe(FUZZ_SEED);
  });

  it('no property pins a seed of its own, which would override FUZZ_SEED', () => {
    const pinned = files(TEST)
      .filter((f) => !f.endsWith(join('helpers', 'fuzz.ts')) && readFileSync(f, 'utf8').includes("from 'fast-check'"))
      .flatMap((f) =>
        readFileSync(f, 'utf8')
          .split('\n')
          .flatMap((line, i) => (/\bseed:\s*[^\s,}]+\s*[,}]/.test(line) ? [`${relative(TEST, f)}:${i + 1}: ${line.trim()}`] : [])),
      );
    expect(pinned).toEqual([]);
  });
});
