import Fastify, { type FastifyInstance } from 'fastify';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { RateLimitedError } from '../../../lib/errors.js';
import { bulkhead } from '../../../policies/bulkhead/index.js';
import { policySource, protectFastify, type AsyncPermitSource } from '../../../integrations/http/index.js';
import { TestBreaker } from '../helpers/test-breaker.js';
import { until } from '../helpers/http-server.js';
import { makeBreaker, tripShedRecover, type Backend } from './scenario.js';

let app: FastifyInstance | undefined;
let unblock: (() => void) | undefined;
afterEach(async () => {
  unblock?.();
  await app?.close();
  app = undefined;
});

async function start(a: FastifyInstance): Promise<string> {
  await a.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(a.server.address() as AddressInfo).port}`;
}

describe('protectFastify', () => {
  it('sheds with 503 and Retry-After once 500s open the breaker, and recovers', async () => {
    const { clock, breaker } = makeBreaker();
    const backend: Backend = { failing: false, calls: 0 };
    app = Fastify({ forceCloseConnections: true });
    await app.register(protectFastify(breaker));
    app.get('/users', async (_req, reply) => {
      backend.calls++;
      return reply.code(backend.failing ? 500 : 200).send(backend.failing ? 'fail' : 'ok');
    });
    await tripShedRecover(`${await start(app)}/users`, backend, breaker, clock);
  });

  it('counts a throwing handler as a failure, keys by route pattern, and releases aborted requests', async () => {
    const made = new Map<string, TestBreaker>();
    app = Fastify({ forceCloseConnections: true });
    await app.register(protectFastify({ sourceFor: (key) => (made.set(key, new TestBreaker({ name: key })), made.get(key)!) }));
    let arrived = 0;
    app.get<{ Params: { id: string } }>('/users/:id', async (req) => {
      arrived++;
      if (req.params.id === 'bad') throw new Error('handler bug');
      if (req.params.id === 'slow') return new Promise<string>((r) => (unblock = () => r('late')));
      return 'ok';
    });
    const url = await start(app);
    expect((await fetch(`${url}/users/1`)).status).toBe(200);
    expect((await fetch(`${url}/users/bad`)).status).toBe(500);
    const b = () => made.get('GET:///users/:id')!;
    expect([...made.keys()]).toEqual(['GET:///users/:id']);
    await until(() => b().settled.failure === 1);
    const caller = new AbortController();
    const pending = fetch(`${url}/users/slow`, { signal: caller.signal }).catch(() => 'aborted');
    await until(() => arrived === 3);
    caller.abort();
    expect(await pending).toBe('aborted');
    await until(() => b().settled.release === 1);
    expect(b().settled).toEqual({ success: 1, failure: 1, release: 1 });
  });

  it('answers 500 when the source fails instead of shedding', async () => {
    app = Fastify();
    await app.register(
      protectFastify({
        name: 'broken',
        allow() {
          throw new TypeError('bug in the source');
        },
      }),
    );
    let ran = false;
    app.get('/x', async () => ((ran = true), 'ok'));
    expect((await fetch(`${await start(app)}/x`)).status).toBe(500);
    expect(ran).toBe(false);
  });

  it('applies to routes registered outside the plugin (not encapsulated)', async () => {
    const breaker = new TestBreaker({ failures: 1 });
    app = Fastify({ forceCloseConnections: true });
    await app.register(protectFastify(breaker));
    await app.register(async (child) => {
      child.get('/inner', async (_q, reply) => reply.code(503).send('down'));
    });
    const url = await start(app);
    expect((await fetch(`${url}/inner`)).status).toBe(503);
    await until(() => breaker.state === 'open');
    const shed = await fetch(`${url}/inner`);
    expect(shed.status).toBe(503);
    expect(await shed.text()).toBe('Service Unavailable');
  });

  it('answers a rate limit with 429 "Too Many Requests" and its Retry-After', async () => {
    app = Fastify();
    await app.register(
      protectFastify({
        name: 'limiter',
        allow() {
          throw new RateLimitedError('limiter', 1_200);
        },
      }),
    );
    app.get('/x', async () => 'ok');
    const res = await fetch(`${await start(app)}/x`);
    expect([res.status, res.headers.get('retry-after'), await res.text()]).toEqual([429, '2', 'Too Many Requests']);
  });

  it('answers 500 when an asynchronous source rejects with something other than a shedding rejection', async () => {
    const rejecting: AsyncPermitSource = { name: 'rejecting', allow: () => Promise.reject(new TypeError('async bug')) };
    app = Fastify();
    await app.register(protectFastify(rejecting));
    let ran = false;
    app.get('/x', async () => ((ran = true), 'ok'));
    expect((await fetch(`${await start(app)}/x`)).status).toBe(500);
    expect(ran).toBe(false);
  });

  it('keys a request that matches no route by its path without the query', async () => {
    const made: string[] = [];
    app = Fastify();
    await app.register(protectFastify({ sourceFor: (key) => (made.push(key), new TestBreaker({ name: key })) }));
    app.get('/known', async () => 'ok');
    const res = await fetch(`${await start(app)}/nowhere/else?q=1`);
    expect(res.status).toBe(404);
    expect(made).toEqual(['GET:///nowhere/else']);
  });

  it('a call admitted after its client went away frees its slot at once and never reaches the handler', async () => {
    const pool = bulkhead({ name: 'pool', limit: 1, queue: 1 });
    app = Fastify({ forceCloseConnections: true });
    await app.register(protectFastify(policySource(pool)));
    let arrived = 0;
    app.get('/', async () => {
      arrived++;
      if (arrived > 1) return 'quick';
      return new Promise<string>((r) => (unblock = () => r('done')));
    });
    const url = await start(app);
    let socketsClosed = 0;
    app.server.on('connection', (socket) => socket.on('close', () => socketsClosed++));
    const first = fetch(url);
    await until(() => arrived === 1);
    const queued = new AbortController();
    const second = fetch(url, { signal: queued.signal }).catch(() => 'gone');
    await until(() => pool.queued === 1);
    queued.abort();
    expect(await second).toBe('gone');
    await until(() => socketsClosed === 1);
    unblock!();
    expect((await first).status).toBe(200);
    await until(() => pool.executing === 0 && pool.queued === 0);
    // The next request is the second the handler sees: the abandoned one never ran it.
    expect(await (await fetch(url)).text()).toBe('quick');
    expect(arrived).toBe(2);
  });

  it('registers under the display name breakwater', async () => {
    app = Fastify();
    await app.register(protectFastify(new TestBreaker()));
    await app.ready();
    expect(app.hasPlugin('breakwater')).toBe(true);
  });
});
