import { status } from '@grpc/grpc-js';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../lib/errors.js';
import { TestClock } from '../../../lib/testing.js';
import { clientInterceptor, serverInterceptor, SHED_DETAILS } from '../../../integrations/grpc/index.js';
import { TestBreaker } from '../helpers/test-breaker.js';
import { until } from '../helpers/http-server.js';
import { startUsers, type Running } from './service.js';

let running: Running | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

describe('clientInterceptor', () => {
  it('sheds calls to a method failing with UNAVAILABLE once its breaker opens, and recovers', async () => {
    const clock = new TestClock(1_000_000);
    running = await startUsers();
    const made = new Map<string, TestBreaker>();
    const client = running.client([
      clientInterceptor({
        target: running.target,
        sourceFor: (name) => (made.set(name, new TestBreaker({ name, failures: 3, openMs: 1_000, clock })), made.get(name)!),
      }),
    ]);
    running.backend.code = status.UNAVAILABLE;
    for (let i = 0; i < 3; i++) expect((await running.call(client)).code).toBe(status.UNAVAILABLE);
    const name = `${running.target}/demo.Users/Get`;
    expect([...made.keys()]).toEqual([name]);
    expect(made.get(name)!.state).toBe('open');
    expect(await running.call(client)).toEqual({ code: status.UNAVAILABLE, details: SHED_DETAILS });
    expect(running.backend.calls).toBe(3); // never sent

    running.backend.code = 0;
    await clock.advance(1_000);
    expect(await running.call(client, { id: 2 })).toEqual({ code: status.OK, value: { id: 2, name: 'Ada' } });
    expect(made.get(name)!.state).toBe('closed');
    expect(running.backend.calls).toBe(4);
  });

  it('counts a passed deadline as a failure and acceptable codes as successes', async () => {
    running = await startUsers();
    const breaker = new TestBreaker({ failures: 100 });
    const client = running.client([clientInterceptor({ target: running.target, source: breaker })]);
    running.backend.code = status.ALREADY_EXISTS;
    expect((await running.call(client)).code).toBe(status.ALREADY_EXISTS);
    running.backend.hang = true;
    expect((await running.call(client, {}, { deadline: Date.now() + 50 })).code).toBe(status.DEADLINE_EXCEEDED);
    expect(breaker.settled).toEqual({ success: 1, failure: 1, release: 0 });
  });

  it("releases the permit when the caller cancels its own call", async () => {
    running = await startUsers();
    const breaker = new TestBreaker({ failures: 100 });
    const client = running.client([clientInterceptor({ target: running.target, source: breaker })]);
    running.backend.hang = true;
    const code = await new Promise<number>((resolve) => {
      const call = (client as unknown as { get(r: unknown, o: object, cb: (e: { code: number } | null) => void): { cancel(): void } }).get(
        { id: 1 },
        {},
        (e) => resolve(e?.code ?? 0),
      );
      void until(() => running!.backend.calls === 1).then(() => call.cancel());
    });
    expect(code).toBe(status.CANCELLED);
    expect(breaker.settled).toEqual({ success: 0, failure: 0, release: 1 });
  });

  it('rejects bad options', () => {
    expect(() => clientInterceptor({ source: new TestBreaker() } as never)).toThrow(ConfigError);
    expect(() => serverInterceptor({})).toThrow(/exactly one/);
  });
});
