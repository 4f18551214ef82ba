import { describe, expect, it } from 'vitest';
import type { EntryConfig } from '../../config/entries.js';
import { ConfigPipeline, read, type Parsed } from '../../config/pipeline.js';
import { ConfigError, isConfigError } from '../../lib/errors.js';
import type { PolicyEvent } from '../../lib/events.js';
import { TestClock } from '../../lib/testing.js';

/** A parser of `{ ms }` or `{ ms, fallback }` documents, standing in for the schemas or the strategies' rules. */
function parse(config: unknown): Parsed {
  const c = config as { ms?: unknown; fallback?: string };
  if (typeof c.ms !== 'number') throw new ConfigError('config', [{ path: 'ms', message: 'expected a number' }]);
  const entries = [{ type: 'timeout', ms: c.ms }, ...(c.fallback ? [{ type: 'fallback', handler: c.fallback }] : [])] as EntryConfig[];
  return { name: 'p', strategy: undefined, entries, paths: entries.map((_, i) => `policies[${i}]`), extra: {}, bind: undefined };
}

describe('ConfigPipeline', () => {
  it('builds its policies from what its parser gives, and reports missing handlers all at once', () => {
    const p = new ConfigPipeline(parse({ ms: 10 }), {}, {}, parse);
    expect(p.pipeline.policies.map((x) => x.name)).toEqual(['timeout']);
    try {
      new ConfigPipeline(parse({ ms: 10, fallback: 'nope' }), {}, {}, parse);
      expect.unreachable();
    } catch (e) {
      expect(isConfigError(e) && e.issues).toEqual([{ path: 'policies[1].handler', message: 'no handler named "nope" was given' }]);
    }
  });

  it('update: applies a change in place with its own parser, refuses an invalid one or a new structure, keeps the last good', async () => {
    const clock = new TestClock(0);
    const p = new ConfigPipeline<never>(parse({ ms: 100 }), {}, { clock }, parse);
    const events: PolicyEvent[] = [];
    p.events$.subscribe((e) => events.push(e));
    expect(p.update({ ms: 20 })).toBe(true);
    expect(p.update({ ms: 'soon' })).toBe(false);
    expect(p.update({ ms: 20, fallback: 'f' })).toBe(false);
    expect(events.filter((e) => e.type.startsWith('config')).map((e) => [e.type, (e as { reason?: string }).reason])).toEqual([
      ['configApplied', undefined],
      ['configRejected', 'invalid'],
      ['configRejected', 'structure'],
    ]);
    const call = p.execute(() => new Promise<never>(() => undefined));
    const settled = expect(call).rejects.toMatchObject({ name: 'TimeoutError' });
    await clock.advance(20);
    await settled;
    expect(p.config).toEqual([{ type: 'timeout', ms: 20 }]);
  });

  it('read: applies the document parser, and turns its throw into a ConfigError', () => {
    expect(read('{"ms":1}', { parse: JSON.parse as (d: never) => unknown })).toEqual({ ms: 1 });
    expect(read({ ms: 1 }, {})).toEqual({ ms: 1 });
    expect(() => read('{', { parse: JSON.parse as (d: never) => unknown })).toThrow(/the document could not be parsed/);
  });
});
