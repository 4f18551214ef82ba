import { describe, expect, it } from 'vitest';
import { writeBehindOptions } from '../../../config/write-behind/options.js';
import { memoryWriteQueue } from '../../../config/write-behind/queue.js';
import { checkOptions } from '../../../lib/options.js';
import { issuesOf } from '../../helpers/config-issues.js';

const deliver = () => undefined;

describe('writeBehindOptions', () => {
  it('fills in the defaults', () => {
    expect(checkOptions(writeBehindOptions, { deliver }, 'writeBehind')).toEqual({ deliver, timeoutMs: 1_000, replayIntervalMs: 1_000, batch: 100, name: 'writeBehind' });
  });

  it('keeps what is given', () => {
    const store = memoryWriteQueue();
    const keyOf = (p: unknown) => String(p);
    const o = checkOptions(writeBehindOptions, { deliver, keyOf, store, timeoutMs: 5, replayIntervalMs: 50, batch: 2, breaker: { k: 2 }, name: 'w' }, 'writeBehind');
    expect(o).toMatchObject({ keyOf, store, timeoutMs: 5, replayIntervalMs: 50, batch: 2, breaker: { k: 2 }, name: 'w' });
  });

  it('refuses each bad option at its path, every one at once', () => {
    expect(issuesOf(() => checkOptions(writeBehindOptions, { timeoutMs: 0, batch: 1.5, store: {}, breaker: 3, name: '', extra: 1 }, 'writeBehind'))).toEqual([
      { path: 'deliver', message: 'expected a function' },
      { path: 'store', message: 'expected a WriteQueue (push, peek, ack)' },
      { path: 'timeoutMs', message: 'expected a number greater than 0' },
      { path: 'batch', message: 'expected an integer >= 1' },
      { path: 'breaker', message: 'Invalid input: expected record, received number' },
      { path: 'name', message: 'expected a non-empty string' },
      { path: 'extra', message: 'unknown option' },
    ]);
  });
});
