import { BehaviorSubject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { fromConfig } from '../../config/from-config.js';
import type { PolicyEvent } from '../../lib/events.js';

const config = (ms: unknown, extra: object[] = []) => ({ name: 'svc', policies: [{ type: 'timeout', ms }, ...extra] });

describe('config events', () => {
  it('configApplied counts versions from 1; configRejected says why, with every issue and its path', () => {
    const source = new BehaviorSubject<unknown>(config(100));
    const p = fromConfig(source);
    const events: PolicyEvent[] = [];
    p.events$.subscribe((e) => events.push(e));
    source.next(config(50));
    source.next(config(-1));
    source.next(config(50, [{ type: 'retry' }]));
    source.next(config(20));
    expect(events).toEqual([
      { type: 'configApplied', policy: 'svc', version: 2, rebuilt: false },
      { type: 'configRejected', policy: 'svc', reason: 'invalid', issues: [{ path: 'policies[0].ms', message: 'expected a number greater than 0' }] },
      { type: 'configApplied', policy: 'svc', version: 3, rebuilt: true },
      { type: 'configApplied', policy: 'svc', version: 4, rebuilt: true },
    ]);
    p.dispose();
  });

  it("configRejected with reason 'error' when the stream fails; the last good config keeps serving", async () => {
    const source = new BehaviorSubject<unknown>(config(100));
    const p = fromConfig(source);
    const events: PolicyEvent[] = [];
    p.events$.subscribe((e) => events.push(e));
    source.error(new Error('watcher died'));
    expect(events).toEqual([
      {
        type: 'configRejected',
        policy: 'svc',
        reason: 'error',
        issues: [{ path: '', message: 'the config stream failed and ended: Error: watcher died; the last good config keeps serving' }],
      },
    ]);
    await expect(p.execute(async () => 'still serving')).resolves.toBe('still serving');
  });
});
