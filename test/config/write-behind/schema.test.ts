import { describe, expect, it } from 'vitest';
import { writeBehindOptions } from '../../../config/write-behind/options.js';
import { memoryWriteQueue } from '../../../config/write-behind/queue.js';
import { WriteBehindOptionsSchema } from '../../../config/write-behind/schema.js';
import { TestClock } from '../../../lib/testing.js';
import { plain, schema } from '../../helpers/parity.js';

const deliver = () => undefined;

/** The zod schema of `breakwater/config` and the writer's plain rules: the same answer for every case. */
describe('WriteBehindOptionsSchema says what writeBehindOptions says', () => {
  const cases: unknown[] = [
    { deliver },
    { deliver, keyOf: (p: unknown) => String(p), store: memoryWriteQueue(), timeoutMs: 5, replayIntervalMs: 1, batch: 3, breaker: {}, name: 'w', clock: new TestClock(0), random: Math.random },
    {},
    { deliver: 'save' },
    { deliver, keyOf: 'k', store: [], clock: {}, random: 0.5 },
    { deliver, timeoutMs: -1, replayIntervalMs: Infinity, batch: 0 },
    { deliver, breaker: [], name: '', other: true },
    null,
    'deliver',
  ];
  for (const [i, input] of cases.entries()) {
    it(`case ${i}`, () => expect(plain(writeBehindOptions, input)).toEqual(schema(WriteBehindOptionsSchema, input)));
  }
});
