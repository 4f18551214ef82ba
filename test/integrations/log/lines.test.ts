import { describe, expect, it } from 'vitest';
import { isLogged, lineFor } from '../../../integrations/log/lines.js';

describe('isLogged', () => {
  it('logs state changes, rejections, retries, give-ups, timeouts and failed fallbacks; not outcomes or cache hits', () => {
    for (const type of ['stateChange', 'rejected', 'retry', 'giveUp', 'timeout', 'fallbackFailed']) expect([type, isLogged(type)]).toEqual([type, true]);
    for (const type of ['outcome', 'success', 'cacheHit', '']) expect([type, isLogged(type)]).toEqual([type, false]);
  });
});

describe('lineFor', () => {
  it('a breaker opening is a warning naming the transition and its figure, rounded to three decimals', () => {
    const line = lineFor({ type: 'stateChange', policy: 'users', from: 'closed', to: 'open', reason: 'errorRatio', figure: 0.123456 });
    expect(line).toEqual({
      level: 'warn',
      fields: { event: 'stateChange', policy: 'users', from: 'closed', to: 'open', reason: 'errorRatio', figure: 0.123456 },
      msg: 'users: breaker closed -> open (errorRatio 0.123)',
    });
    // closing is news, not a warning; without a figure nothing is added
    expect(lineFor({ type: 'stateChange', policy: 'users', from: 'halfOpen', to: 'closed' })).toMatchObject({ level: 'info', msg: 'users: breaker halfOpen -> closed' });
  });

  it('a rejection is a warning, with the state when the event has one', () => {
    expect(lineFor({ type: 'rejected', policy: 'b', state: 'open' })).toMatchObject({ level: 'warn', msg: 'b: call rejected (open)' });
    expect(lineFor({ type: 'rejected', policy: 'b' })).toMatchObject({ level: 'warn', msg: 'b: call rejected' });
  });

  it('a retry is news; a give-up an error unless the call was not to be retried or the caller cancelled', () => {
    expect(lineFor({ type: 'retry', policy: 'r', attempt: 2, delayMs: 12.3456 })).toMatchObject({ level: 'info', msg: 'r: retrying, attempt 2 in 12.346 ms' });
    expect(lineFor({ type: 'giveUp', policy: 'r', attempts: 3, reason: 'exhausted' })).toMatchObject({ level: 'error', msg: 'r: gave up after 3 attempts (exhausted)' });
    expect(lineFor({ type: 'giveUp', policy: 'r', attempts: 1, reason: 'notHandled' })).toMatchObject({ level: 'info' });
    expect(lineFor({ type: 'giveUp', policy: 'r', attempts: 1, reason: 'cancelled' })).toMatchObject({ level: 'info' });
  });

  it('a timeout is a warning, a failed fallback an error', () => {
    expect(lineFor({ type: 'timeout', policy: 't', timeoutMs: 250 })).toMatchObject({ level: 'warn', msg: 't: timed out after 250 ms' });
    expect(lineFor({ type: 'fallbackFailed', policy: 'f' })).toMatchObject({ level: 'error', msg: 'f: every fallback handler failed' });
  });

  it('puts a thrown value under err (where pino looks), drops an undefined one, and gives no line for other kinds', () => {
    const error = new Error('boom');
    expect(lineFor({ type: 'fallbackFailed', policy: 'f', error })!.fields).toEqual({ event: 'fallbackFailed', policy: 'f', err: error });
    expect(lineFor({ type: 'fallbackFailed', policy: 'f', error: undefined })!.fields).toEqual({ event: 'fallbackFailed', policy: 'f' });
    expect(lineFor({ type: 'outcome', policy: 'x', result: 'success' })).toBeUndefined();
  });
});
