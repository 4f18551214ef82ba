import { createServer } from 'node:http';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { TestClock } from '../../../lib/testing.js';
import { adaptiveLimiter } from '../../../policies/adaptive-limiter/index.js';
import { bulkhead } from '../../../policies/bulkhead/index.js';
import { circuitBreaker } from '../../../policies/circuit-breaker/index.js';
import { loadShedder } from '../../../policies/load-shedder/index.js';
import { rateLimiter, tokenBucket } from '../../../policies/rate-limiter/index.js';
import { sreBreaker } from '../../../policies/sre-breaker/index.js';
import { policySource, protectExpress, protectHandler } from '../../../integrations/http/index.js';
import { listen, until, type LocalServer } from '../helpers/http-server.js';

let server: LocalServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const statusOf = async (url: string): Promise<[number, string | null]> => {
  const res = await fetch(url);
  await res.arrayBuffer();
  return [res.status, res.headers.get('retry-after')];
};

describe('the HTTP guards with breakwater policies', () => {
  it('circuitBreaker: 500s open it, calls are shed with 503 and its own Retry-After, a probe closes it', async () => {
    const clock = new TestClock(1_000_000);
    const breaker = circuitBreaker({ name: 'users', strategy: 'consecutiveFailures', threshold: 3, openMs: 2_000, clock });
    let failing = true;
    let calls = 0;
    server = await listen(
      createServer(
        protectHandler((_req, res) => {
          calls++;
          res.statusCode = failing ? 500 : 200;
          res.end();
        }, breaker),
      ),
    );
    for (let i = 0; i < 3; i++) expect((await statusOf(server.url))[0]).toBe(500);
    await until(() => breaker.state === 'open');
    await clock.advance(500);
    expect(await statusOf(server.url)).toEqual([503, '2']); // 1.5 s left, rounded up
    expect(calls).toBe(3);
    failing = false;
    await clock.advance(1_500);
    expect((await statusOf(server.url))[0]).toBe(200);
    await until(() => breaker.state === 'closed');
  });

  it('sreBreaker: sheds with 503 and the default Retry-After once failures dominate', async () => {
    const clock = new TestClock(1_000_000);
    let draws = 0;
    const breaker = sreBreaker({ name: 'sre', clock, random: () => (draws++, 0), protection: 2 });
    server = await listen(createServer(protectHandler((_req, res) => ((res.statusCode = 503), res.end()), breaker)));
    const seen: number[] = [];
    for (let i = 0; i < 6; i++) seen.push((await statusOf(server.url))[0]);
    // with no success, the drop ratio turns positive after `protection` failures: then every call is shed
    expect(seen.slice(0, 3)).toEqual([503, 503, 503]);
    expect(await statusOf(server.url)).toEqual([503, '1']);
    expect(breaker.state).toBe('open');
    expect(draws).toBeGreaterThan(0);
  });

  it('rateLimiter through policySource: 429 with the wait for the next token', async () => {
    const clock = new TestClock(1_000_000);
    const limiter = rateLimiter({ name: 'api', algorithm: tokenBucket({ rate: 1, burst: 2 }), clock });
    server = await listen(createServer(protectHandler((_req, res) => res.end('ok'), policySource(limiter))));
    expect((await statusOf(server.url))[0]).toBe(200);
    expect((await statusOf(server.url))[0]).toBe(200);
    expect(await statusOf(server.url)).toEqual([429, '1']);
    await clock.advance(1_000);
    expect((await statusOf(server.url))[0]).toBe(200);
  });

  it('bulkhead through policySource (Express): one running, one queued, the next shed with 503; the slot frees when the answer is sent', async () => {
    const pool = bulkhead({ name: 'pool', limit: 1, queue: 1 });
    const release: Array<() => void> = [];
    const app = express();
    app.use(protectExpress(policySource(pool)));
    app.get('/', (_req, res) => {
      release.push(() => res.send('done'));
    });
    server = await listen(createServer(app));
    const first = fetch(server.url);
    await until(() => release.length === 1);
    const second = fetch(server.url); // waits in the queue
    await until(() => pool.queued === 1);
    expect(await statusOf(server.url)).toEqual([503, '1']);
    release[0]!();
    expect((await first).status).toBe(200);
    await until(() => release.length === 2);
    release[1]!();
    expect((await second).status).toBe(200);
    await until(() => pool.executing === 0);
  });

  it('bulkhead through policySource: clients that go away free their slot, running or queued', async () => {
    const pool = bulkhead({ name: 'pool', limit: 1, queue: 1 });
    let arrivals = 0;
    let socketsClosed = 0;
    const http = createServer(protectHandler(() => void arrivals++, policySource(pool)));
    http.on('connection', (socket) => socket.on('close', () => socketsClosed++));
    server = await listen(http);
    const running = new AbortController();
    const queued = new AbortController();
    const a = fetch(server.url, { signal: running.signal }).catch(() => 'gone');
    await until(() => arrivals === 1);
    const b = fetch(server.url, { signal: queued.signal }).catch(() => 'gone');
    await until(() => pool.queued === 1);
    queued.abort();
    expect(await b).toBe('gone');
    await until(() => socketsClosed === 1); // the server has seen the queued client go
    running.abort(); // the running call's client goes: its slot frees, the queued one's turn comes and is released at once
    expect(await a).toBe('gone');
    await until(() => pool.executing === 0 && pool.queued === 0);
    expect(arrivals).toBe(1);
  });

  it('loadShedder: a synchronous source of its own', async () => {
    const shedder = loadShedder({ name: 'cpu' });
    server = await listen(createServer(protectHandler((_req, res) => res.end('ok'), shedder)));
    expect((await statusOf(server.url))[0]).toBe(200);
    await until(() => shedder.inFlight === 0);
  });

  it('adaptiveLimiter: a synchronous source of its own; requests beyond its limit get 503 and Retry-After at once', async () => {
    const limiter = adaptiveLimiter({ name: 'api', initialLimit: 1 });
    let release: (() => void) | undefined;
    let calls = 0;
    server = await listen(
      createServer(
        protectHandler((_req, res) => {
          calls++;
          if (calls === 1) release = () => res.end('slow');
          else res.end('ok');
        }, limiter),
      ),
    );
    const slow = fetch(server.url).then((r) => r.text());
    await until(() => release !== undefined);
    expect(await statusOf(server.url)).toEqual([503, '1']);
    expect(calls).toBe(1);
    release!();
    expect(await slow).toBe('slow');
    await until(() => limiter.inFlight === 0);
    expect(await statusOf(server.url)).toEqual([200, null]);
  });
});
