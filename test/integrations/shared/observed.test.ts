import { BehaviorSubject, EMPTY, type Observable } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { PolicyEvent } from '../../../lib/events.js';
import { breakersOf, loose, PolicyNames, policyNamesOf, stateValue, type Observed } from '../../../integrations/shared/observed.js';

const plain = (name: string): Observed => ({ name, events$: EMPTY as Observable<PolicyEvent> });
const breaker = (name: string) => ({ name, events$: EMPTY, state$: new BehaviorSubject('closed') });
const pipeline = (name: string, policies: unknown[]): Observed => ({ name, events$: EMPTY as Observable<PolicyEvent>, policies });

describe('policyNamesOf', () => {
  it('a policy alone is its own name; a pipeline lists its policies’ names in order, repeats kept', () => {
    expect(policyNamesOf(plain('retry'))).toEqual(['retry']);
    expect(policyNamesOf(pipeline('p', [plain('timeout'), plain('retry'), plain('timeout')]))).toEqual(['timeout', 'retry', 'timeout']);
  });

  it('a member without a name reads as the empty string', () => {
    expect(policyNamesOf(pipeline('p', [{}, undefined, plain('x')]))).toEqual(['', '', 'x']);
  });
});

describe('breakersOf', () => {
  it('finds the members with a state$ Observable, with their names', () => {
    const b = breaker('db');
    const found = breakersOf(pipeline('p', [plain('retry'), b, { name: 'fake', state$: 'open' }, undefined]));
    expect(found).toEqual([{ name: 'db', state$: b.state$ }]);
  });

  it('a breaker alone is found itself; a policy without state$ gives none', () => {
    const b = breaker('solo');
    expect(breakersOf(b as Observed).map((x) => x.name)).toEqual(['solo']);
    expect(breakersOf(plain('retry'))).toEqual([]);
  });
});

describe('stateValue', () => {
  it('numbers states as gobreaker does: closed 0, open 1, half-open 2; anything else -1', () => {
    expect(['closed', 'open', 'half-open'].map(stateValue)).toEqual([0, 1, 2]);
    for (const v of ['isolated', '', undefined, 1]) expect(stateValue(v)).toBe(-1);
  });
});

describe('loose', () => {
  it('gives the same event, read by its fields', () => {
    const e = { type: 'outcome', policy: 'p', result: 'success', durationMs: 3 } as PolicyEvent;
    const l = loose(e);
    expect(l).toBe(e);
    expect(l['durationMs']).toBe(3);
  });
});

describe('PolicyNames', () => {
  it('known names pass as they are, with no key', () => {
    const n = new PolicyNames(pipeline('api', [plain('retry'), plain('hosts')]));
    expect(n.base('retry')).toBe('retry');
    expect(n.key).toBeUndefined();
    expect(n.base('api')).toBe('api');
  });

  it('a keyed breaker’s breaker (name:key) collapses to the keyed name, the rest being the key', () => {
    const n = new PolicyNames(pipeline('api', [plain('hosts')]));
    expect(n.base('hosts:users.internal')).toBe('hosts');
    expect(n.key).toBe('users.internal');
    // a key may hold colons itself
    expect(n.base('hosts:a:b')).toBe('hosts');
    expect(n.key).toBe('a:b');
  });

  it('each call forgets the key of the last', () => {
    const n = new PolicyNames(pipeline('api', [plain('hosts')]));
    n.base('hosts:x');
    n.base('hosts');
    expect(n.key).toBeUndefined();
  });

  it('the longest known name wins; unknown names and a bare name: pass unchanged', () => {
    const n = new PolicyNames(pipeline('a', [plain('a:b')]));
    expect(n.base('a:b:c')).toBe('a:b');
    expect(n.key).toBe('c');
    expect(n.base('a:x')).toBe('a');
    expect(n.key).toBe('x');
    expect(n.base('other:x')).toBe('other:x');
    expect(n.key).toBeUndefined();
    // nothing after the colon is no key
    expect(n.base('a:')).toBe('a:');
    expect(n.key).toBeUndefined();
    // a name that only starts like a known one is not under it
    expect(n.base('ab:c')).toBe('ab:c');
  });
});
