import { createServer } from 'node:http';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { protectExpress } from '../../../integrations/http/index.js';
import { TestBreaker } from '../helpers/test-breaker.js';
import { listen, until, type LocalServer } from '../helpers/http-server.js';
import { makeBreaker, tripShedRecover, type Backend } from './scenario.js';

let server: LocalServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('protectExpress', () => {
  it('sheds with 503 and Retry-After once 500s open the breaker, and recovers', async () => {
    const { clock, breaker } = makeBreaker();
    const backend: Backend = { failing: false, calls: 0 };
    const app = express();
    app.use(protectExpress(breaker));
    app.get('/users', (_req, res) => {
      backend.calls++;
      res.status(backend.failing ? 500 : 200).send(backend.failing ? 'fail' : 'ok');
    });
    server = await listen(createServer(app));
    await tripShedRecover(`${server.url}/users`, backend, breaker, clock);
  });

  it('counts a handler that throws (answered 500 by Express) as a failure, and keys by route pattern', async () => {
    const made = new Map<string, TestBreaker>();
    const guard = protectExpress({ sourceFor: (key) => (made.set(key, new TestBreaker({ name: key })), made.get(key)!) });
    const app = express();
    app.get('/users/:id', guard, (req, res) => {
      if (req.params.id === 'bad') throw new Error('handler bug');
      res.send('ok');
    });
    app.use((_err: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
      res.status(500).send('oops');
    });
    server = await listen(createServer(app));
    expect((await fetch(`${server.url}/users/1`)).status).toBe(200);
    expect((await fetch(`${server.url}/users/2`)).status).toBe(200);
    expect((await fetch(`${server.url}/users/bad`)).status).toBe(500);
    expect([...made.keys()]).toEqual(['GET:///users/:id']);
    await until(() => made.get('GET:///users/:id')!.settled.failure === 1);
    expect(made.get('GET:///users/:id')!.settled).toEqual({ success: 2, failure: 1, release: 0 });
  });
});
