import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const dist = fileURLToPath(new URL('../dist/', import.meta.url));

// Citations of documents a user of the package cannot open: a design seed and
// its sections, numbered rules, steps or parts of a text outside the package.
const UNRESOLVABLE = /seed 0|§|rule [0-9]|step [0-9]|part [A-Z]/;

describe('the shipped declaration files', () => {
  const files = readdirSync(dist).filter((f) => f.endsWith('.d.ts') || f.endsWith('.d.cts'));

  it('exist for every entry, ESM and CJS (npm test builds first)', () => {
    for (const entry of ['index', 'testing', 'sla', 'redis', 'prometheus', 'otel', 'http', 'grpc']) {
      expect(files).toContain(`${entry}.d.ts`);
      expect(files).toContain(`${entry}.d.cts`);
    }
  });

  it('are written once: each ESM entry re-exports its CommonJS declarations, and no ESM chunk repeats them', () => {
    for (const entry of ['index', 'config', 'testing', 'sla', 'redis', 'prometheus', 'otel', 'http', 'grpc']) {
      expect(readFileSync(`${dist}${entry}.d.ts`, 'utf8')).toBe(`export * from './${entry}.cjs';\n`);
    }
    expect(files.filter((f) => f.endsWith('.d.ts') && !/^(index|config|testing|sla|redis|prometheus|otel|http|grpc)\.d\.ts$/.test(f))).toEqual([]);
  });

  it('cite no seed, section, rule, step or part a user cannot resolve', () => {
    const found: string[] = [];
    for (const file of files) {
      readFileSync(dist + file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (UNRESOLVABLE.test(line)) found.push(`${file}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(found).toEqual([]);
  });

  it('would catch each kind of citation', () => {
    for (const line of ['(seed 002 §3.3)', 'see § 4', 'spec rule 6', 'step 7 passes', 'breakers.md, part B']) {
      expect(line).toMatch(UNRESOLVABLE);
    }
    for (const line of ['seededRandom(42)', 'the rule itself', 'steps back', 'part of the window']) {
      expect(line).not.toMatch(UNRESOLVABLE);
    }
  });
});
