import { status } from '@grpc/grpc-js';
import { afterEach, describe, expect, it } from 'vitest';
import { TestClock } from '../../../lib/testing.js';
import { serverInterceptor, SHED_DETAILS } from '../../../integrations/grpc/index.js';
import { TestBreaker } from '../helpers/test-breaker.js';
import { until } from '../helpers/http-server.js';
import { startUsers, type Running } from './service.js';

let running: Running | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

describe('serverInterceptor', () => {
  it('sheds a method failing with UNAVAILABLE once the breaker opens, and recovers', async () => {
    const clock = new TestClock(1_000_000);
    const made = new Map<string, TestBreaker>();
    running = await startUsers([
      serverInterceptor({ sourceFor: (name) => (made.set(name, new TestBreaker({ name, failures: 3, openMs: 1_000, clock })), made.get(name)!) }),
    ]);
    const client = running.client();
    running.backend.code = status.UNAVAILABLE;
    for (let i = 0; i < 3; i++) expect(await running.call(client)).toEqual({ code: status.UNAVAILABLE, details: 'backend says no' });
    expect([...made.keys()]).toEqual(['/demo.Users/Get']);
    const breaker = made.get('/demo.Users/Get')!;
    expect(breaker.state).toBe('open');
    expect(await running.call(client)).toEqual({ code: status.UNAVAILABLE, details: SHED_DETAILS });
    expect(running.backend.calls).toBe(3);

    running.backend.code = 0;
    await clock.advance(1_000);
    expect(await running.call(client, { id: 7 })).toEqual({ code: status.OK, value: { id: 7, name: 'Ada' } });
    expect(breaker.state).toBe('closed');
    expect((await running.call(client)).code).toBe(status.OK);
    expect(running.backend.calls).toBe(5);
  });

  it('counts acceptable codes and non-gRPC errors (UNKNOWN) as successes, releases cancelled calls', async () => {
    const breaker = new TestBreaker({ failures: 100 });
    running = await startUsers([serverInterceptor({ source: breaker })]);
    const client = running.client();
    running.backend.code = status.NOT_FOUND;
    expect((await running.call(client)).code).toBe(status.NOT_FOUND);
    running.backend.code = status.INVALID_ARGUMENT;
    expect((await running.call(client)).code).toBe(status.INVALID_ARGUMENT);
    running.backend.code = 0;
    running.backend.throws = new Error('plain bug');
    expect((await running.call(client)).code).toBe(status.UNKNOWN);
    running.backend.throws = undefined;
    running.backend.code = status.INTERNAL;
    expect((await running.call(client)).code).toBe(status.INTERNAL);
    expect(breaker.settled).toEqual({ success: 3, failure: 1, release: 0 });

    running.backend.hang = true;
    const calls = running.backend.calls;
    const pending = new Promise<number>((resolve) => {
      const call = (client as unknown as { get(r: unknown, o: object, cb: (e: { code: number } | null) => void): { cancel(): void } }).get(
        { id: 1 },
        {},
        (e) => resolve(e?.code ?? 0),
      );
      void until(() => running!.backend.calls === calls + 1).then(() => call.cancel());
    });
    expect(await pending).toBe(status.CANCELLED);
    await until(() => breaker.settled.release === 1);
  });
});

describe('serverInterceptor deadlines', () => {
  it('answers INTERNAL, without running the handler, when the source fails instead of shedding', async () => {
    running = await startUsers([
      serverInterceptor({
        source: {
          name: 'broken',
          allow() {
            throw new TypeError('bug');
          },
        },
      }),
    ]);
    expect(await running.call(running.client())).toEqual({ code: status.INTERNAL, details: 'breakwater: permit source failed: bug' });
    expect(running.backend.calls).toBe(0);
  });

  // On a real server the client's own deadline timer usually cancels the stream just before the
  // server's fires, so which one wins is a race; the rule itself is checked on a stand-in call.
  it('counts a cancel after the deadline as a failure, before it as a release', () => {
    for (const [deadline, expected] of [
      [Date.now() - 1, { success: 0, failure: 1, release: 0 }],
      [Infinity, { success: 0, failure: 0, release: 1 }],
    ] as const) {
      const breaker = new TestBreaker({ failures: 100 });
      let listener: { onCancel(): void } | undefined;
      const below = {
        start: (l: { onCancel(): void }) => void (listener = l),
        getDeadline: () => deadline,
        sendStatus() {},
        startRead() {},
      };
      const call = serverInterceptor({ source: breaker })({ path: '/demo.Users/Get' } as never, below as never);
      call.start({ onReceiveMetadata() {}, onReceiveMessage() {}, onReceiveHalfClose() {}, onCancel() {} });
      listener!.onCancel();
      listener!.onCancel();
      expect(breaker.settled).toEqual(expected);
    }
  });
});
