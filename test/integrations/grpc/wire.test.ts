import {
  credentials,
  makeGenericClientConstructor,

  Server,
  ServerCredentials,
  status,
  type Client,
  type ServerUnaryCall,
  type sendUnaryData,
  type ServiceError,
} from '@grpc/grpc-js';
import { afterEach, describe, expect, it } from 'vitest';
import { callContext, callOptionsOf, wireClientInterceptor, wireServerInterceptor } from '../../../integrations/grpc/index.js';
import { isNoRetryError } from '../../../integrations/shared/wire.js';
import { isOverloadedError } from '../../../lib/errors.js';
import type { ExecutionContext } from '../../../lib/policy.js';
import { constant } from '../../../policies/retry/backoff.js';
import { retry } from '../../../policies/retry/retry.js';
import { UsersService } from './service.js';

const WORK_MS = 50;
const STEP_MS = 10;

interface Hop {
  calls: number;
  /** The deadline each call's handler got (this process's clock), and what was left of it when the handler started. */
  deadlines: number[];
  left: number[];
  /** When the hop began calling the next one. */
  forwarded: number[];
  steps: { at: number; deadline: number }[];
  /** The criticality and attempt each call's context carried. */
  criticalities: string[];
  attempts: number[];
}

type UsersClient = Client & { get(req: unknown, options: object, cb: (e: ServiceError | null, r?: unknown) => void): unknown };
const Ctor = makeGenericClientConstructor(UsersService, 'Users');
const running: (() => void)[] = [];
afterEach(() => {
  for (const stop of running.splice(0)) stop();
});

function client(target: string): UsersClient {
  const c = new Ctor(target, credentials.createInsecure(), { interceptors: [wireClientInterceptor()] }) as unknown as UsersClient;
  running.push(() => c.close());
  return c;
}

/** One call of `c` in `ctx`, as a promise. */
function get(c: UsersClient, ctx: ExecutionContext): Promise<unknown> {
  return new Promise((resolve, reject) => c.get({ id: 1 }, callOptionsOf(ctx), (e, r) => (e ? reject(e) : resolve(r))));
}

async function work(h: Hop, ctx: { deadline: number | undefined; signal: AbortSignal }): Promise<void> {
  for (let done = 0; done < WORK_MS; done += STEP_MS) {
    const now = Date.now();
    if (ctx.signal.aborted || (ctx.deadline !== undefined && now >= ctx.deadline)) throw Object.assign(new Error('deadline passed'), { code: status.DEADLINE_EXCEEDED });
    h.steps.push({ at: now, deadline: ctx.deadline ?? Infinity });
    await new Promise((r) => setTimeout(r, STEP_MS));
  }
}

/** A grpc-js service on loopback: it works (if `working`), then calls `next` under retry, or fails UNAVAILABLE (`dead`). */
async function hop(next: string | undefined, working: boolean, dead = false): Promise<{ target: string; hop: Hop }> {
  const h: Hop = { calls: 0, deadlines: [], left: [], forwarded: [], steps: [], criticalities: [], attempts: [] };
  const downstream = next === undefined ? undefined : client(next);
  const policy = retry({ maxAttempts: 3, backoff: constant(1) });
  const server = new Server({ interceptors: [wireServerInterceptor({ trustCriticality: () => true })] });
  server.addService(UsersService, {
    get(call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) {
      h.calls++;
      const ctx = callContext(call)!;
      h.deadlines.push(ctx.deadline ?? Infinity);
      h.left.push((ctx.deadline ?? Infinity) - Date.now());
      h.criticalities.push(ctx.criticality);
      h.attempts.push(ctx.callerAttempt);
      if (dead) return callback({ code: status.UNAVAILABLE, details: 'down' });
      void (async () => {
        if (working) await work(h, ctx);
        if (downstream === undefined) return { done: true };
        h.forwarded.push(Date.now());
        return policy.execute((inner) => get(downstream, inner), ctx);
      })().then(
        (value) => callback(null, value),
        (error: ServiceError) => callback(error),
      );
    },
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
  );
  running.push(() => server.forceShutdown());
  return { target: `127.0.0.1:${port}`, hop: h };
}

describe('a chain of three grpc-js services (real sockets on loopback)', () => {
  it('the deadline set at the edge reaches hop 3 less the time spent at the hops before it; criticality and attempt travel', async () => {
    const c = await hop(undefined, true);
    const b = await hop(c.target, true);
    const a = await hop(b.target, true);
    const edge = client(a.target);
    const deadline = Date.now() + 10_000;
    const sent = Date.now();
    await expect(retry({ maxAttempts: 1 }).execute((ctx) => get(edge, ctx), { deadline, meta: { criticality: 'critical' } })).resolves.toEqual({ done: true });
    // What each hop had left when it called the next, against what the next had left when its handler started. grpc-js
    // rounds the timeout it sends up to the millisecond: 1 ms per hop is all a callee may get beyond its caller's time.
    expect(a.hop.left[0]!).toBeLessThanOrEqual(deadline - sent + 1);
    expect(b.hop.left[0]!).toBeLessThanOrEqual(a.hop.deadlines[0]! - a.hop.forwarded[0]! + 1);
    expect(c.hop.left[0]!).toBeLessThanOrEqual(b.hop.deadlines[0]! - b.hop.forwarded[0]! + 1);
    expect(b.hop.forwarded[0]! - sent).toBeGreaterThanOrEqual(2 * WORK_MS - 2 * STEP_MS);
    // Within a generous bound of the edge's (what the calls spent on the wire), so a loaded machine passes.
    expect(Math.abs(c.hop.deadlines[0]! - deadline)).toBeLessThan(2_000);
    expect([a.hop.criticalities[0], b.hop.criticalities[0], c.hop.criticalities[0]]).toEqual(['critical', 'critical', 'critical']);
    expect([a.hop.attempts[0], b.hop.attempts[0], c.hop.attempts[0]]).toEqual([1, 1, 1]);
  });

  it('nothing runs at a hop once its deadline has passed, and a chain out of time stops on the way', async () => {
    const c = await hop(undefined, true);
    const b = await hop(c.target, true);
    const a = await hop(b.target, true);
    const edge = client(a.target);
    const deadline = Date.now() + 2 * WORK_MS + 20;
    await expect(retry({ maxAttempts: 1 }).execute((ctx) => get(edge, ctx), { deadline })).rejects.toThrow();
    await new Promise((r) => setTimeout(r, 4 * WORK_MS));
    const steps = [...a.hop.steps, ...b.hop.steps, ...c.hop.steps];
    expect(steps.length).toBeGreaterThan(0);
    for (const step of steps) expect(step.at).toBeLessThan(step.deadline);
    expect(c.hop.steps.length).toBeLessThan(WORK_MS / STEP_MS);
  });

  it('each hop retries 3 times, the last dependency is down: it gets <= 3 calls per edge call, every other hop 1', async () => {
    const down = await hop(undefined, false, true);
    const c = await hop(down.target, false);
    const b = await hop(c.target, false);
    const a = await hop(b.target, false);
    const edge = client(a.target);
    for (let request = 1; request <= 2; request++) {
      const failed = await retry({ maxAttempts: 3, backoff: constant(1) })
        .execute((ctx) => get(edge, ctx))
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(isNoRetryError(failed)).toBe(true);
      expect(isOverloadedError(failed)).toBe(true);
      expect((failed as ServiceError).code).toBe(status.UNAVAILABLE);
      expect((failed as ServiceError).metadata.get('grpc-retry-pushback-ms')).toEqual(['-1']);
      expect([a.hop.calls, b.hop.calls, c.hop.calls]).toEqual([request, request, request]);
      expect(down.hop.calls).toBeLessThanOrEqual(3 * request);
      expect(down.hop.calls).toBeGreaterThan(3 * (request - 1));
      // The dead end saw the tries of the hop right above it: 1, 2, 3.
      expect(down.hop.attempts.slice(-3)).toEqual([1, 2, 3]);
    }
  });

  it('a call that arrives with its deadline passed is answered DEADLINE_EXCEEDED and its handler never runs', async () => {
    const c = await hop(undefined, false);
    const raw = new Ctor(c.target, credentials.createInsecure()) as unknown as UsersClient;
    running.push(() => raw.close());
    const code = await new Promise<number>((resolve) => raw.get({ id: 1 }, { deadline: Date.now() - 1 }, (e) => resolve(e?.code ?? status.OK)));
    expect(code).toBe(status.DEADLINE_EXCEEDED);
    expect(c.hop.calls).toBe(0);
  });
});
