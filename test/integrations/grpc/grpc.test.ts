import { Metadata, status, type StatusObject } from '@grpc/grpc-js';
import { afterEach, describe, expect, it } from 'vitest';
import { isTimeoutError, type TimeoutError } from '../../../lib/errors.js';
import { adaptiveLimiter } from '../../../policies/adaptive-limiter/index.js';
import type { PermitSource } from '../../../integrations/shared/permit.js';
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
