import { describe, expect, it } from 'vitest';
import { logEventsOptions } from '../../../integrations/log/options.js';
import { LogEventsOptionsSchema } from '../../../integrations/log/schema.js';
import { TestClock } from '../../../lib/testing.js';
import { plain, schema } from '../../helpers/parity.js';

/** The zod schema of `breakwater/config` and logEvents' plain rules: the same answer for every case. */
describe('LogEventsOptionsSchema says what logEventsOptions says', () => {
  const cases: unknown[] = [{}, { rateLimitMs: 0 }, { rateLimitMs: 5_000, clock: new TestClock(0) }, { rateLimitMs: -1 }, { rateLimitMs: 'often', clock: Date }, { every: 1 }, [], 7];
  for (const [i, input] of cases.entries()) {
    it(`case ${i}`, () => expect(plain(logEventsOptions, input)).toEqual(schema(LogEventsOptionsSchema, input)));
  }
});
