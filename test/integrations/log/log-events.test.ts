import { merge, type Observable } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { EventSource, type PolicyEvent } from '../../../lib/events.js';
import { ConfigError } from '../../../lib/errors.js';
import { TestClock } from '../../../lib/testing.js';
import { logEvents, type EventLogger } from '../../../integrations/log/index.js';
import { scriptedTraffic } from '../helpers/traffic.js';
import { TestBreaker } from '../helpers/test-breaker.js';
import { circuitBreaker } from '../../../policies/circuit-breaker/index.js';
import { sreBreaker } from '../../../policies/sre-breaker/index.js';
import { bulkhead } from '../../../policies/bulkhead/index.js';
import { adaptiveLimiter } from '../../../policies/adaptive-limiter/index.js';

interface Entry {
  level: 'info' | 'warn' | 'error';
  obj: Record<string, unknown>;
  msg: string | undefined;
  at: number;
}

function fakeLogger(clock: TestClock): EventLogger & { entries: Entry[] } {
  const entries: Entry[] = [];
  const at = (level: Entry['level']) => (obj: object, msg?: string) => entries.push({ level, obj: obj as Record<string, unknown>, msg, at: clock.now() });
  return { entries, info: at('info'), warn: at('warn'), error: at('error') };
}

describe('logEvents', () => {
  it('logs transitions, rejections, retries and give-ups as structured lines', async () => {
    const { clock, pipeline, run } = scriptedTraffic();
    const logger = fakeLogger(clock);
    logEvents(pipeline, logger, { clock, rateLimitMs: 0 });
    await run();
    expect(logger.entries.map((e) => [e.level, e.msg])).toEqual([
      ['info', 'payments-retry: retrying, attempt 2 in 100 ms'],
      ['info', 'payments-retry: retrying, attempt 2 in 100 ms'],
      ['warn', 'payments: breaker closed -> open (threshold 2)'],
      ['error', 'payments-retry: gave up after 2 attempts (maxAttempts)'],
      ['warn', 'payments: call rejected (open)'],
      ['info', 'payments-retry: gave up after 1 attempts (notHandled)'],
      ['info', 'payments: breaker open -> half-open'],
      ['info', 'payments: breaker half-open -> closed'],
    ]);
    const open = logger.entries[2]!.obj;
    expect(open).toEqual({ event: 'stateChange', policy: 'payments', from: 'closed', to: 'open', reason: 'threshold', figure: 2 });
    const giveUp = logger.entries[3]!.obj;
    expect(giveUp).toMatchObject({ event: 'giveUp', policy: 'payments-retry', attempts: 2, reason: 'maxAttempts' });
    expect((giveUp['err'] as Error).message).toBe('boom');
    expect(logger.entries[4]!.obj).toMatchObject({ event: 'rejected', state: 'open', retryAfterMs: 1_000 });
    expect(clock.pendingTimers).toBe(0);
  });

  it('logs the real circuitBreaker and sreBreaker transitions', async () => {
    const { clock, pipeline, run } = scriptedTraffic((c) =>
      circuitBreaker({ name: 'payments', strategy: 'consecutiveFailures', threshold: 2, openMs: 1_000, clock: c }),
    );
    const logger = fakeLogger(clock);
    logEvents(pipeline, logger, { clock, rateLimitMs: 0 });
    await run();
    const transitions = logger.entries.filter((e) => e.obj['event'] === 'stateChange').map((e) => [e.level, e.msg]);
    expect(transitions).toEqual([
      ['warn', 'payments: breaker closed -> open (threshold 2)'],
      ['info', 'payments: breaker open -> half-open'],
      ['info', 'payments: breaker half-open -> closed (probesSucceeded 1)'],
    ]);
    expect(logger.entries.find((e) => e.obj['event'] === 'rejected')?.msg).toBe('payments: call rejected (open)');

    const sreClock = new TestClock(1_000_000);
    const sre = sreBreaker({ name: 'sre', clock: sreClock, random: () => 0, protection: 1 });
    const sreLog = fakeLogger(sreClock);
    logEvents(sre, sreLog, { clock: sreClock, rateLimitMs: 0 });
    for (let i = 0; i < 4; i++) await sre.execute(() => Promise.reject(new Error('down'))).catch(() => {});
    expect(sreLog.entries[0]?.level).toBe('warn');
    expect(sreLog.entries[0]?.msg).toMatch(/^sre: breaker closed -> open \(dropRatio 0\.\d+\)$/);
  });

  it('rate-limits per policy and kind, then writes the last suppressed line with its count', async () => {
    const clock = new TestClock(1_000_000);
    const breaker = new TestBreaker({ name: 'b', failures: 1, openMs: 60_000, clock });
    const other = new TestBreaker({ name: 'c', failures: 1, openMs: 60_000, clock });
    const logger = fakeLogger(clock);
    const merged = { name: 'both', events$: (pipeOf(breaker, other)) };
    const handle = logEvents(merged, logger, { clock, rateLimitMs: 1_000 });
    await breaker.execute(() => Promise.reject(new Error('x'))).catch(() => {});
    await other.execute(() => Promise.reject(new Error('x'))).catch(() => {});
    for (let i = 0; i < 5; i++) {
      await breaker.execute(() => 1).catch(() => {});
      await clock.advance(100);
    }
    await other.execute(() => 1).catch(() => {});
    // first of each kind at once, per policy
    expect(logger.entries.map((e) => e.msg)).toEqual([
      'b: breaker closed -> open (threshold 1)',
      'c: breaker closed -> open (threshold 1)',
      'b: call rejected (open)',
      'c: call rejected (open)',
    ]);
    await clock.advance(500);
    // b's four later rejections: the last is written at the end of the interval, one second after the first
    expect(logger.entries.slice(4).map((e) => [e.msg, e.obj['suppressed'], e.at - 1_000_000])).toEqual([['b: call rejected (open)', 3, 1_000]]);
    // a quiet interval, then the next line is written at once
    await clock.advance(5_000);
    await breaker.execute(() => 1).catch(() => {});
    expect(logger.entries.length).toBe(6);
    expect(logger.entries[5]!.obj['suppressed']).toBeUndefined();
    // dispose writes what is pending and clears the timer
    await breaker.execute(() => 1).catch(() => {});
    expect(logger.entries.length).toBe(6);
    handle.dispose();
    expect(logger.entries.length).toBe(7);
    expect(clock.armedTimers).toBe(0);
    await breaker.execute(() => 1).catch(() => {});
    expect(logger.entries.length).toBe(7);
  });

  it("throttles a keyed breaker's breakers together, keeping each line's own name", async () => {
    const clock = new TestClock(1_000_000);
    const source = new EventSource();
    const logger = fakeLogger(clock);
    logEvents({ name: 'p', events$: source.events$, policies: [{ name: 'tenants' }] }, logger, { clock, rateLimitMs: 1_000 });
    for (let i = 0; i < 100; i++) source.emit({ type: 'rejected', policy: `tenants:t${i}`, state: 'open' } as never);
    await clock.advance(1_000);
    expect(logger.entries.map((e) => [e.msg, e.obj['suppressed']])).toEqual([
      ['tenants:t0: call rejected (open)', undefined],
      ['tenants:t99: call rejected (open)', 98],
    ]);
  });

  it('rejects bad options', () => {
    const clock = new TestClock();
    expect(() => logEvents(new TestBreaker(), fakeLogger(clock), { rateLimitMs: -1 })).toThrow(ConfigError);
    expect(() => logEvents(new TestBreaker(), fakeLogger(clock), { clock, every: 5 } as never)).toThrow('invalid logEvents options: every: unknown option');
  });

  it('writes timeouts (warn) and failed fallbacks (error), rounds figures to three decimals, and logs no outcome', () => {
    const clock = new TestClock(1_000_000);
    const source = new EventSource();
    const logger = fakeLogger(clock);
    logEvents({ name: 'p', events$: source.events$ }, logger, { clock, rateLimitMs: 0 });
    const emit = (e: Record<string, unknown>) => source.emit(e as never);
    emit({ type: 'outcome', policy: 'p', result: 'success', durationMs: 3 });
    emit({ type: 'timeout', policy: 'p', timeoutMs: 250 });
    emit({ type: 'fallbackFailed', policy: 'p', error: new Error('no cache') });
    emit({ type: 'stateChange', policy: 'p', from: 'closed', to: 'open', reason: 'dropRatio', figure: 0.123456 });
    emit({ type: 'retry', policy: 'p', attempt: 2, delayMs: 12.3456 });
    expect(logger.entries.map((e) => [e.level, e.msg])).toEqual([
      ['warn', 'p: timed out after 250 ms'],
      ['error', 'p: every fallback handler failed'],
      ['warn', 'p: breaker closed -> open (dropRatio 0.123)'],
      ['info', 'p: retrying, attempt 2 in 12.346 ms'],
    ]);
    expect(logger.entries[0]!.obj).toEqual({ event: 'timeout', policy: 'p', timeoutMs: 250 });
    expect((logger.entries[1]!.obj['err'] as Error).message).toBe('no cache');
    expect('error' in logger.entries[1]!.obj).toBe(false);
  });

  it("gives a caller's cancellation an info line, leaves out an undefined error, and says no state it was not told", () => {
    const clock = new TestClock(1_000_000);
    const source = new EventSource();
    const logger = fakeLogger(clock);
    logEvents({ name: 'p', events$: source.events$ }, logger, { clock, rateLimitMs: 0 });
    source.emit({ type: 'giveUp', policy: 'r', attempts: 1, reason: 'cancelled', error: undefined } as never);
    source.emit({ type: 'rejected', policy: 'b' } as never);
    expect(logger.entries.map((e) => [e.level, e.msg])).toEqual([
      ['info', 'r: gave up after 1 attempts (cancelled)'],
      ['warn', 'b: call rejected'],
    ]);
    expect(logger.entries[0]!.obj).toEqual({ event: 'giveUp', policy: 'r', attempts: 1, reason: 'cancelled' });
    expect('err' in logger.entries[0]!.obj).toBe(false);
  });

  it('logs the refusals of a real bulkhead and adaptive limiter, each under its own event type', async () => {
    const clock = new TestClock(1_000_000);
    const logger = fakeLogger(clock);
    const full = bulkhead({ limit: 1, queue: 0, name: 'db' });
    const limiter = adaptiveLimiter({ algorithm: 'aimd', initialLimit: 1, minLimit: 1, maxLimit: 1, clock, name: 'api' });
    logEvents({ name: 'p', events$: merge(full.events$, limiter.events$) as Observable<PolicyEvent> }, logger, { clock, rateLimitMs: 0 });
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const heldBulkhead = full.execute(() => gate);
    const heldLimiter = limiter.execute(() => gate);
    await expect(full.execute(() => 1)).rejects.toThrow();
    await expect(limiter.execute(() => 1)).rejects.toThrow();
    open();
    await Promise.all([heldBulkhead, heldLimiter]);
    expect(logger.entries.map((e) => [e.level, e.msg, e.obj['event'], e.obj['reason']])).toEqual([
      ['warn', 'db: call rejected', 'limitRejected', 'bulkheadFull'],
      ['warn', 'api: call rejected', 'concurrencyRejected', 'concurrencyLimited'],
    ]);
  });

  it('rate-limits to one line a second by default, and writes at once a line exactly one interval after the last', async () => {
    const clock = new TestClock(1_000_000);
    const source = new EventSource();
    const logger = fakeLogger(clock);
    logEvents({ name: 'p', events$: source.events$ }, logger, { clock });
    const reject = () => source.emit({ type: 'rejected', policy: 'b', state: 'open' } as never);
    reject();
    reject();
    expect(logger.entries.length).toBe(1);
    await clock.advance(1_000);
    await clock.advance(500);
    reject(); // half a second after the line written at the end of the interval: waits for the next
    expect(logger.entries.length).toBe(2);
    await clock.advance(500);
    expect(logger.entries.map((e) => [e.at - 1_000_000, e.obj['suppressed']])).toEqual([
      [0, undefined],
      [1_000, undefined],
      [2_000, undefined],
    ]);
    await clock.advance(1_000);
    reject(); // exactly 1 s after the last line
    expect(logger.entries.length).toBe(4);
    expect(clock.pendingTimers).toBe(0);
  });
});

function pipeOf(...ps: Array<{ events$: Observable<PolicyEvent> }>): Observable<PolicyEvent> {
  return merge(...ps.map((p) => p.events$));
}
