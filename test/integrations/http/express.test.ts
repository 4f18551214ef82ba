import { createServer } from 'node:http';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { bulkhead } from '../../../policies/bulkhead/index.js';
import { policySource, protectExpress, type AsyncPermitSource } from '../../../integrations/http/index.js';
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

  it('keys by the router mount path plus the route pattern, or plus the path without its query when not on a route', async () => {
    const made: string[] = [];
    const sourceFor = (key: string) => (made.push(key), new TestBreaker({ name: key }));
    const app = express();
    const router = express.Router();
    router.get('/users/:id', protectExpress({ sourceFor }), (_req, res) => void res.send('user'));
    app.use('/api', router);
    app.use('/files', protectExpress({ sourceFor }), (_req, res) => void res.send('file'));
    server = await listen(createServer(app));
    expect(await (await fetch(`${server.url}/api/users/7?fields=name`)).text()).toBe('user');
    expect(await (await fetch(`${server.url}/files/a/b.txt?v=2`)).text()).toBe('file');
    expect(made).toEqual(['GET:///api/users/:id', 'GET:///files/a/b.txt']);
  });

  it("passes a source's failure (not a shed) to Express's error handling, sync or async, without running the handler", async () => {
    const broken: AsyncPermitSource = {
      name: 'broken',
      allow() {
        throw new TypeError('sync bug');
      },
    };
    const rejecting: AsyncPermitSource = { name: 'rejecting', allow: () => Promise.reject(new TypeError('async bug')) };
    const seen: string[] = [];
    let ran = 0;
    const app = express();
    app.get('/sync', protectExpress(broken), () => void ran++);
    app.get('/async', protectExpress(rejecting), () => void ran++);
    app.use((err: Error, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
      seen.push(err.message);
      res.status(500).send('oops');
    });
    server = await listen(createServer(app));
    expect((await fetch(`${server.url}/sync`)).status).toBe(500);
    expect((await fetch(`${server.url}/async`)).status).toBe(500);
    expect(seen).toEqual(['sync bug', 'async bug']);
    expect(ran).toBe(0);
  });

  it('releases at once, without running the handler, a call admitted after its client went away', async () => {
    const pool = bulkhead({ name: 'pool', limit: 1, queue: 1 });
    const finish: Array<() => void> = [];
    let socketsClosed = 0;
    const app = express();
    app.use(protectExpress(policySource(pool)));
    app.get('/', (_req, res) => void finish.push(() => res.send('done')));
    const http = createServer(app);
    http.on('connection', (socket) => socket.on('close', () => socketsClosed++));
    server = await listen(http);
    const first = fetch(server.url);
    await until(() => finish.length === 1);
    const queued = new AbortController();
    const second = fetch(server.url, { signal: queued.signal }).catch(() => 'gone');
    await until(() => pool.queued === 1);
    queued.abort();
    expect(await second).toBe('gone');
    await until(() => socketsClosed === 1);
    finish[0]!();
    expect((await first).status).toBe(200);
    await until(() => pool.executing === 0 && pool.queued === 0);
    expect(finish.length).toBe(1);
  });
});
