import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as root from '../../api/index.js';
import { TestClock } from '../../lib/testing.js';

const dist = fileURLToPath(new URL('../../dist/', import.meta.url));

// Old name -> new name, for every public rename; each old name stays a deprecated alias.
const RENAMED = {
  SreBreaker: 'SreBreakerPolicy',
  CircuitBreaker: 'CircuitBreakerPolicy',
  KeyedBreaker: 'KeyedBreakerPolicy',
  LoadShedder: 'LoadShedderPolicy',
  Permit: 'BreakerPermit',
} as const;

/**
 * The built declarations, joined (tsup may put a declaration in a shared chunk): the `.d.cts` files, which the
 * ESM entries' `.d.ts` re-export (scripts/dts-once.mjs), so both conditions read these.
 */
function builtDeclarations(): string {
  return readdirSync(dist)
    .filter((f) => f.endsWith('.d.cts'))
    .map((f) => readFileSync(dist + f, 'utf8'))
    .join('\n');
}

describe('deprecated aliases of renamed classes', () => {
  it.each(Object.entries(RENAMED))('exports %s from the root as the same class as %s', (old, renamed) => {
    const exports = root as Record<string, unknown>;
    expect(typeof exports[renamed]).toBe('function');
    expect(exports[old]).toBe(exports[renamed]);
  });

  it('makes instances that are instanceof both names', () => {
    const clock = new TestClock();
    const sre = root.sreBreaker({ clock });
    expect(sre).toBeInstanceOf(root.SreBreaker);
    expect(sre).toBeInstanceOf(root.SreBreakerPolicy);
    const machine = root.circuitBreaker({ strategy: 'errorRatio', clock });
    expect(machine).toBeInstanceOf(root.CircuitBreaker);
    expect(machine).toBeInstanceOf(root.CircuitBreakerPolicy);
    expect(sre).not.toBeInstanceOf(root.CircuitBreaker);
    const keyed = root.keyedBreaker(() => 'k', { defaults: { family: 'sre', clock } });
    expect(keyed).toBeInstanceOf(root.KeyedBreaker);
    const shedder = root.loadShedder();
    expect(shedder).toBeInstanceOf(root.LoadShedder);
    expect(sre.allow()).toBeInstanceOf(root.Permit);
    expect(new root.Permit({ complete() {}, endIsolation() {} }, 0, 0)).toBeInstanceOf(root.BreakerPermit);
  });

  it('marks each alias @deprecated, as a value and as a type, in the built declarations', () => {
    const dts = builtDeclarations();
    for (const [old, renamed] of Object.entries(RENAMED)) {
      for (const kind of ['const', 'type']) {
        const declaration = new RegExp(`/\\*\\*[^/]*@deprecated Renamed \\{@link ${renamed}\\}[^/]*\\*/\\s*(?:export )?(?:declare )?${kind} ${old}\\b`);
        expect(dts, `${kind} ${old}`).toMatch(declaration);
      }
    }
  });
});
