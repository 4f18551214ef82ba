import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { resilientFetch } from '../../../integrations/fetch/index.js';
import { EMPTY } from 'rxjs';
import { policySource, protectExpress, protectFastify, protectHandler, requestContext, type AsyncPermitSource, type HttpGuardOptions } from '../../../integrations/http/index.js';
import type { IncomingContext } from '../../../integrations/shared/wire.js';
import { NoRetryError } from '../../../integrations/shared/wire.js';
import { BrokenCircuitError, TimeoutError } from '../../../lib/errors.js';
import { constant, retry } from '../../../policies/retry/index.js';
import { listen, type LocalServer } from '../helpers/http-server.js';

let server: LocalServer | undefined;
let app: FastifyInstance | undefined;
afterEach(async () => {
  await server?.close();
  await app?.close();
  server = undefined;
  app = undefined;
});

/** Admits every call and counts them. */
function counting(): AsyncPermitSource & { asked: number } {
  const source = { name: 'open', asked: 0, allow: () => (source.asked++, { success() {}, failure() {}, release() {} }) };
  return source;
}

/** A node:http server whose handler keeps the context it was given and answers 200 (or runs `then`). */
async function node(options: Omit<HttpGuardOptions, 'source' | 'sourceFor'> = {}, then?: (req: IncomingMessage, res: ServerResponse) => unknown) {
  const seen: (IncomingContext | undefined)[] = [];
  const source = counting();
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    seen.push(requestContext(req));
    return then === undefined ? res.end('ok') : then(req, res);
  };
  server = await listen(protectHandler(handler, { ...options, source, onError: () => {} }));
  return { url: server.url, seen, source };
}

describe('the HTTP guards across the wire', () => {
  it('answer a request that arrives with no time left 504 at once: no permit asked, no handler run', async () => {
    const { url, seen, source } = await node();
    const res = await fetch(url, { headers: { 'x-breakwater-timeout-ms': '0' } });
    expect(res.status).toBe(504);
    expect(await res.text()).toBe('Deadline Exceeded');
    expect(seen).toEqual([]);
    expect(source.asked).toBe(0);
  });

  it('answer it with expiredStatus when given, and read the deadline header by the name given', async () => {
    const { url, seen } = await node({ expiredStatus: 408, headers: { deadline: 'X-Time-Left' } });
    expect((await fetch(url, { headers: { 'x-time-left': '0' } })).status).toBe(408);
    expect((await fetch(url, { headers: { 'x-breakwater-timeout-ms': '0' } })).status).toBe(200);
    expect(seen[0]!.deadline).toBeUndefined();
  });

  it("give the handler the caller's deadline, cut to maxDeadlineMs, and maxDeadlineMs to a request without one", async () => {
    const { url, seen } = await node({ maxDeadlineMs: 300 });
    const before = Date.now();
    await (await fetch(url, { headers: { 'x-breakwater-timeout-ms': '60000' } })).text();
    await (await fetch(url, { headers: { 'x-breakwater-timeout-ms': '100' } })).text();
    await (await fetch(url)).text();
    await (await fetch(url, { headers: { 'x-breakwater-timeout-ms': 'soon' } })).text();
    const after = Date.now();
    const [cut, kept, none, malformed] = seen.map((c) => c!.deadline!);
    expect(cut).toBeGreaterThanOrEqual(before + 300);
    expect(cut).toBeLessThanOrEqual(after + 300);
    expect(kept).toBeLessThanOrEqual(after + 100);
    expect(kept).toBeGreaterThanOrEqual(before + 100);
    expect(none).toBeGreaterThanOrEqual(before + 300);
    expect(malformed).toBeGreaterThanOrEqual(before + 300);
  });

  it('abort the context signal when the deadline passes, with a TimeoutError', async () => {
    const reasons: unknown[] = [];
    const { url } = await node({}, async (req, res) => {
      const ctx = requestContext(req)!;
      await new Promise((r) => ctx.signal.addEventListener('abort', r));
      reasons.push(ctx.signal.reason);
      res.end('late');
    });
    await (await fetch(url, { headers: { 'x-breakwater-timeout-ms': '20' } })).text();
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toBeInstanceOf(TimeoutError);
  });

  it('honour a criticality only from trusted callers, and read the attempt', async () => {
    const { url, seen } = await node({ trustCriticality: (req) => req.headers['x-internal'] === 'yes' });
    const send = (headers: Record<string, string>) => fetch(url, { headers }).then((r) => r.text());
    await send({ 'x-breakwater-criticality': 'critical', 'x-breakwater-attempt': '2' });
    await send({ 'x-breakwater-criticality': 'critical', 'x-internal': 'yes' });
    await send({ 'x-breakwater-criticality': 'sheddable', 'x-internal': 'yes', 'x-breakwater-attempt': 'x' });
    await send({ 'x-breakwater-criticality': 'urgent', 'x-internal': 'yes' });
    expect(seen.map((c) => [c!.criticality, c!.meta.criticality, c!.callerAttempt])).toEqual([
      ['default', 'default', 2],
      ['critical', 'critical', 1],
      ['sheddable', 'sheddable', 1],
      ['default', 'default', 1],
    ]);
  });

  it('tell the permit source the honoured criticality and the deadline; policySource passes the criticality to its policy', async () => {
    const admitted: unknown[] = [];
    const source: AsyncPermitSource = { name: 's', allow: (request) => (admitted.push(request), { success() {}, failure() {}, release() {} }) };
    server = await listen(protectHandler((_req, res) => res.end('ok'), { source, trustCriticality: () => true }));
    const before = Date.now();
    await (await fetch(server.url, { headers: { 'x-breakwater-criticality': 'sheddable', 'x-breakwater-timeout-ms': '800' } })).text();
    await (await fetch(server.url)).text();
    const [first, second] = admitted as { meta: Record<string, string>; deadline: number | undefined }[];
    expect(first!.meta).toEqual({ criticality: 'sheddable' });
    expect(first!.deadline).toBeGreaterThanOrEqual(before + 800);
    expect(second).toEqual({ meta: { criticality: 'default' }, deadline: undefined });
    await server.close();
    const metas: unknown[] = [];
    const recording = {
      name: 'recording',
      events$: EMPTY,
      execute: (op: (ctx: never) => unknown, options?: { meta?: unknown }) => (metas.push(options?.meta), Promise.resolve(op({} as never))),
    };
    server = await listen(protectHandler((_req, res) => res.end('ok'), { source: policySource(recording as never), trustCriticality: () => true }));
    await (await fetch(server.url, { headers: { 'x-breakwater-criticality': 'critical' } })).text();
    expect(metas).toEqual([{ criticality: 'critical' }]);
  });

  it('answer a handler failure by its kind: downstream and shed ones say "do not retry", others do not', async () => {
    const errors: unknown[] = [
      new NoRetryError('resilientFetch', 503, 'gave up below'),
      new BrokenCircuitError('b'),
      new TimeoutError('t'),
      new Error('bug'),
    ];
    let i = 0;
    const { url } = await node({}, () => {
      throw errors[i++];
    });
    const answers: [number, string | null][] = [];
    for (let n = 0; n < errors.length; n++) {
      const res = await fetch(url);
      await res.text();
      answers.push([res.status, res.headers.get('x-breakwater-no-retry')]);
    }
    expect(answers).toEqual([
      [503, '1'],
      [503, '1'],
      [504, null],
      [500, null],
    ]);
  });

  it('mark a failed answer "do not retry" when a call made with the request context failed, whoever writes the answer', async () => {
    const down = await listen((_req, res) => res.writeHead(503).end());
    const http = resilientFetch(retry({ maxAttempts: 2, backoff: constant(0) }));
    const answers: [number, string | null][] = [];
    const main = await listen(
      protectHandler(
        async (req, res) => {
          // The handler catches the failure and answers 502 itself.
          await http(down.url, { ctx: requestContext(req) }).catch(() => undefined);
          res.writeHead(req.url === '/ok' ? 200 : 502).end();
        },
        { source: counting() },
      ),
    );
    for (const path of ['/fail', '/ok']) {
      const res = await fetch(main.url + path);
      answers.push([res.status, res.headers.get('x-breakwater-no-retry')]);
    }
    await down.close();
    await main.close();
    expect(answers).toEqual([
      [502, '1'],
      [200, null],
    ]);
  });

  it('protectExpress: refuses an expired request, gives the context, and marks a failure downstream', async () => {
    const down = await listen((_req, res) => res.writeHead(500).end());
    const http = resilientFetch(retry({ maxAttempts: 1 }));
    const e = express();
    const seen: (IncomingContext | undefined)[] = [];
    e.use(protectExpress({ source: counting(), trustCriticality: () => true }));
    e.get('/', async (req, res) => {
      seen.push(requestContext(req));
      const ok = await http(down.url, { ctx: requestContext(req) }).then(
        () => true,
        () => false,
      );
      res.status(ok ? 200 : 500).send('x');
    });
    server = await listen(createServer(e));
    expect((await fetch(server.url, { headers: { 'x-breakwater-timeout-ms': '0' } })).status).toBe(504);
    const res = await fetch(server.url, { headers: { 'x-breakwater-timeout-ms': '5000', 'x-breakwater-criticality': 'sheddable' } });
    expect([res.status, res.headers.get('x-breakwater-no-retry')]).toEqual([500, '1']);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.criticality).toBe('sheddable');
    expect(seen[0]!.deadline).toBeGreaterThan(Date.now());
    await down.close();
  });

  it('protectFastify: refuses an expired request, gives the context (by the Fastify request), and marks a failure downstream', async () => {
    const down = await listen((_req, res) => res.writeHead(500).end());
    const http = resilientFetch(retry({ maxAttempts: 1 }));
    const seen: (IncomingContext | undefined)[] = [];
    app = Fastify({ forceCloseConnections: true });
    await app.register(protectFastify({ source: counting() }));
    app.get('/', async (request, reply) => {
      const ctx = requestContext(request);
      seen.push(ctx);
      const ok = await http(down.url, { ctx }).then(
        () => true,
        () => false,
      );
      return reply.code(ok ? 200 : 500).send('x');
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    expect((await fetch(url, { headers: { 'x-breakwater-timeout-ms': '0' } })).status).toBe(504);
    const res = await fetch(url, { headers: { 'x-breakwater-timeout-ms': '5000' } });
    expect([res.status, res.headers.get('x-breakwater-no-retry')]).toEqual([500, '1']);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.deadline).toBeGreaterThan(Date.now());
    expect(seen[0]!.criticality).toBe('default');
    await down.close();
  });
});
