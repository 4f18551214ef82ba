import { Metadata, status, type StatusObject } from '@grpc/grpc-js';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, isTimeoutError, type TimeoutError } from '../../../lib/errors.js';
import { adaptiveLimiter } from '../../../policies/adaptive-limiter/index.js';
import type { PermitSource } from '../../../integrations/shared/permit.js';
import { TestClock } from '../../../lib/testing.js';
import { clientInterceptor, LIMIT_DETAILS, serverInterceptor, SHED_DETAILS } from '../../../integrations/grpc/index.js';
import { configError, recording } from '../helpers/checks.js';
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

describe('the interceptors with an adaptive concurrency limiter', () => {
  it('server: calls beyond the limit are answered UNAVAILABLE "concurrency limit reached" without running the handler', async () => {
    const limiter = adaptiveLimiter({ name: 'users', initialLimit: 1 });
    running = await startUsers([serverInterceptor({ source: limiter })]);
    const client = running.client();
    running.backend.hang = true;
    const held = running.call(client, {}, { deadline: Date.now() + 2_000 });
    await until(() => running!.backend.calls === 1);
    expect(await running.call(client)).toEqual({ code: status.UNAVAILABLE, details: LIMIT_DETAILS });
    expect(running.backend.calls).toBe(1);
    expect(limiter.inFlight).toBe(1);
    running.backend.hang = false;
    expect((await held).code).toBe(status.DEADLINE_EXCEEDED);
    await until(() => limiter.inFlight === 0);
    expect((await running.call(client)).code).toBe(status.OK);
  });

  it('client: a call beyond the limit is never sent and ends UNAVAILABLE "concurrency limit reached"', async () => {
    running = await startUsers();
    const limiter = adaptiveLimiter({ initialLimit: 1 });
    const client = running.client([clientInterceptor({ target: running.target, source: limiter })]);
    const permit = limiter.allow();
    expect(await running.call(client)).toEqual({ code: status.UNAVAILABLE, details: LIMIT_DETAILS });
    expect(running.backend.calls).toBe(0);
    permit.release();
    expect((await running.call(client)).code).toBe(status.OK);
  });

  it('a passed deadline settles the permit with a TimeoutError, a drop for a limiter, on both sides', async () => {
    running = await startUsers();
    const source = recording();
    const client = running.client([clientInterceptor({ target: running.target, source })]);
    running.backend.hang = true;
    expect((await running.call(client, {}, { deadline: Date.now() + 50 })).code).toBe(status.DEADLINE_EXCEEDED);
    expect(source.ends).toHaveLength(1);
    expect(isTimeoutError(source.ends[0])).toBe(true);
    // The server side, on a stand-in call whose deadline has passed when the client cancels.
    const server = recording();
    let listener: { onCancel(): void } | undefined;
    const below = { start: (l: { onCancel(): void }) => void (listener = l), getDeadline: () => Date.now() - 1, sendStatus() {}, startRead() {} };
    const call = serverInterceptor({ source: server })({ path: '/demo.Users/Get' } as never, below as never);
    call.start({ onReceiveMetadata() {}, onReceiveMessage() {}, onReceiveHalfClose() {}, onCancel() {} });
    listener!.onCancel();
    expect(server.ends).toHaveLength(1);
    expect(isTimeoutError(server.ends[0])).toBe(true);
  });
});

type RawClient = { get(r: unknown, o: object, cb: (e: { code: number; details: string; metadata: unknown } | null) => void): { cancel(): void } };

describe('the interceptors, in detail', () => {
  it("sheds with go-zero's and Netflix's words, and the caller's error carries metadata", async () => {
    expect(SHED_DETAILS).toBe('circuit breaker is open');
    expect(LIMIT_DETAILS).toBe('concurrency limit reached');
    running = await startUsers();
    const breaker = new TestBreaker({ failures: 1 });
    const client = running.client([clientInterceptor({ target: running.target, source: breaker })]);
    running.backend.code = status.INTERNAL;
    expect((await running.call(client)).code).toBe(status.INTERNAL);
    const error = await new Promise<{ code: number; details: string; metadata: unknown }>((resolve) =>
      (client as unknown as RawClient).get({ id: 1 }, {}, (e) => resolve(e!)),
    );
    expect([error.code, error.details]).toEqual([status.UNAVAILABLE, 'circuit breaker is open']);
    expect(error.metadata).toBeInstanceOf(Metadata);
    expect(running.backend.calls).toBe(1);
  });

  it('client: settles with the status for a failure and a TimeoutError carrying it for a passed deadline', async () => {
    running = await startUsers();
    const source = recording();
    const client = running.client([clientInterceptor({ target: running.target, source })]);
    running.backend.code = status.UNAVAILABLE;
    await running.call(client);
    expect((source.ends[0] as StatusObject).code).toBe(status.UNAVAILABLE);
    expect((source.ends[0] as StatusObject).details).toBe('backend says no');
    running.backend.hang = true;
    const answer = await running.call(client, {}, { deadline: Date.now() + 50 });
    const timeout = source.ends[1] as TimeoutError;
    expect(isTimeoutError(timeout)).toBe(true);
    expect(timeout.policy).toBe('grpc.clientInterceptor');
    expect(timeout.message).toBe(answer.details);
    expect((timeout.cause as StatusObject).code).toBe(status.DEADLINE_EXCEEDED);
  });

  it('client: takes isFailure, for a passed deadline too', async () => {
    running = await startUsers();
    const source = recording();
    const client = running.client([clientInterceptor({ target: running.target, source, isFailure: (code) => code === status.NOT_FOUND })]);
    running.backend.code = status.NOT_FOUND;
    await running.call(client);
    running.backend.code = status.UNAVAILABLE;
    await running.call(client);
    running.backend.hang = true;
    expect((await running.call(client, {}, { deadline: Date.now() + 50 })).code).toBe(status.DEADLINE_EXCEEDED);
    expect(source.ends.map((e) => (typeof e === 'string' ? e : (e as StatusObject).code))).toEqual([status.NOT_FOUND, 'success', 'success']);
  });

  it('client: names the source after the target without its trailing slashes', async () => {
    running = await startUsers();
    const names: string[] = [];
    const client = running.client([clientInterceptor({ target: `${running.target}//`, sourceFor: (name) => (names.push(name), new TestBreaker({ name })) })]);
    expect((await running.call(client)).code).toBe(status.OK);
    expect(names).toEqual([`${running.target}/demo.Users/Get`]);
  });

  it('client: a source that fails instead of shedding throws to the caller, and nothing is sent', async () => {
    running = await startUsers();
    const broken: PermitSource = {
      name: 'broken',
      allow() {
        throw new TypeError('bug in the source');
      },
    };
    const client = running.client([clientInterceptor({ target: running.target, source: broken })]);
    expect(() => (client as unknown as RawClient).get({ id: 1 }, {}, () => {})).toThrow('bug in the source');
    expect(running.backend.calls).toBe(0);
  });

  it('server: settles with the status for a failure, and takes isFailure', async () => {
    const source = recording();
    running = await startUsers([serverInterceptor({ source, isFailure: (code) => code === status.NOT_FOUND || code === status.INTERNAL })]);
    const client = running.client();
    running.backend.code = status.NOT_FOUND;
    await running.call(client);
    running.backend.code = status.UNAVAILABLE;
    await running.call(client);
    running.backend.code = status.INTERNAL;
    await running.call(client);
    await until(() => source.ends.length === 3);
    expect(source.ends.map((e) => (typeof e === 'string' ? e : [(e as StatusObject).code, (e as StatusObject).details]))).toEqual([
      [status.NOT_FOUND, 'backend says no'],
      'success',
      [status.INTERNAL, 'backend says no'],
    ]);
  });

  it('server: names what a failing source threw, even when it is no Error', async () => {
    let thrown: unknown = 'not an error';
    running = await startUsers([
      serverInterceptor({
        source: {
          name: 'broken',
          allow() {
            throw thrown;
          },
        },
      }),
    ]);
    const client = running.client();
    expect(await running.call(client)).toEqual({ code: status.INTERNAL, details: 'breakwater: permit source failed: not an error' });
    thrown = null;
    expect(await running.call(client)).toEqual({ code: status.INTERNAL, details: 'breakwater: permit source failed: null' });
  });

  it('server: a cancel after the status went out changes nothing', () => {
    const source = recording();
    let listener: { onCancel(): void } | undefined;
    const below = { start: (l: { onCancel(): void }) => void (listener = l), getDeadline: () => Date.now() - 1, sendStatus() {}, startRead() {} };
    const call = serverInterceptor({ source })({ path: '/demo.Users/Get' } as never, below as never);
    call.start({ onReceiveMetadata() {}, onReceiveMessage() {}, onReceiveHalfClose() {}, onCancel() {} });
    call.sendStatus({ code: status.OK, details: '', metadata: new Metadata() });
    call.sendStatus({ code: status.INTERNAL, details: 'again', metadata: new Metadata() });
    listener!.onCancel();
    expect(source.ends).toEqual(['success']);
  });

  it('server: a passed deadline fails the permit with the TimeoutError "deadline exceeded"', () => {
    const source = recording();
    let listener: { onCancel(): void } | undefined;
    const below = { start: (l: { onCancel(): void }) => void (listener = l), getDeadline: () => Date.now() - 1, sendStatus() {}, startRead() {} };
    const call = serverInterceptor({ source })({ path: '/demo.Users/Get' } as never, below as never);
    call.start({ onReceiveMetadata() {}, onReceiveMessage() {}, onReceiveHalfClose() {}, onCancel() {} });
    listener!.onCancel();
    const e = source.ends[0] as TimeoutError;
    expect([e.name, e.policy, e.message]).toEqual(['TimeoutError', 'grpc.serverInterceptor', 'deadline exceeded']);
  });

  it('refuse bad options with a ConfigError naming each', () => {
    const source = new TestBreaker();
    const issues = (f: () => unknown) => configError(f).issues;
    expect(configError(() => serverInterceptor({})).message).toBe('invalid grpc.serverInterceptor options: source: give exactly one of source and sourceFor');
    expect(issues(() => clientInterceptor({ target: 'users:50051', source: {} as never }))).toEqual([
      { path: 'source', message: 'expected a permit source (an object with allow())' },
    ]);
    expect(issues(() => clientInterceptor({ target: '', source }))).toEqual([{ path: 'target', message: 'expected the channel target' }]);
    expect(issues(() => clientInterceptor({ target: 'users:50051', source, maxKeys: 0 })).map((i) => i.path)).toEqual(['maxKeys']);
    expect(issues(() => clientInterceptor({ target: 'users:50051', source, bogus: 1 } as never))).toEqual([{ path: 'bogus', message: 'unknown option' }]);
    expect(issues(() => serverInterceptor({ source, bogus: 1 } as never))).toEqual([{ path: 'bogus', message: 'unknown option' }]);
  });
});
