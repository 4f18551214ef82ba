import { createServer } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, RateLimitedError } from '../../../lib/errors.js';
import { protectHandler, type PermitSource } from '../../../integrations/http/index.js';
import { TestBreaker } from '../helpers/test-breaker.js';
import { listen, until, type LocalServer } from '../helpers/http-server.js';
import { makeBreaker, tripShedRecover, type Backend } from './scenario.js';

let server: LocalServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('protectHandler (node:http)', () => {
  it('sheds with 503 and Retry-After once 500s open the breaker, and recovers', async () => {
    const { clock, breaker } = makeBreaker();
    const backend: Backend = { failing: false, calls: 0 };
    server = await listen(
      createServer(
        protectHandler((_req, res) => {
          backend.calls++;
          res.statusCode = backend.failing ? 500 : 200;
          res.end(backend.failing ? 'fail' : 'ok');
        }, breaker),
      ),
    );
    await tripShedRecover(server.url, backend, breaker, clock);
  });

  it('counts a throwing or rejecting handler as a 500 failure', async () => {
    const breaker = new TestBreaker({ failures: 10 });
    const errors: unknown[] = [];
    let n = 0;
    server = await listen(
      createServer(
        protectHandler(
          async (_req, res) => {
            n++;
            if (n === 1) throw new Error('sync-ish');
            await Promise.resolve();
            if (n === 2) throw new Error('async');
            res.end('fine');
          },
          { source: breaker, onError: (e) => errors.push(e) },
        ),
      ),
    );
    expect((await fetch(server.url)).status).toBe(500);
    expect((await fetch(server.url)).status).toBe(500);
    expect((await fetch(server.url)).status).toBe(200);
    await until(() => breaker.settled.success === 1);
    expect(breaker.settled).toEqual({ success: 1, failure: 2, release: 0 });
    expect(errors.map((e) => (e as Error).message)).toEqual(['sync-ish', 'async']);
  });

  it('answers a rate limit with 429 and its Retry-After, rounded up to seconds', async () => {
    const limiter: PermitSource = {
      name: 'limiter',
      allow() {
        throw new RateLimitedError('limiter', 2_500);
      },
    };
    server = await listen(createServer(protectHandler(() => {}, limiter)));
    const res = await fetch(server.url);
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('3');
  });

  it('keeps one source per METHOD://path and releases the permit when the client goes away', async () => {
    const made = new Map<string, TestBreaker>();
    const sourceFor = (key: string) => {
      const b = new TestBreaker({ name: key });
      made.set(key, b);
      return b;
    };
    let hang = false;
    let arrivals = 0;
    server = await listen(
      createServer(
        protectHandler(
          (_req, res) => {
            arrivals++;
            if (!hang) res.end('ok');
          },
          { sourceFor },
        ),
      ),
    );
    await (await fetch(`${server.url}/a?x=1`)).text();
    await (await fetch(`${server.url}/a?x=2`)).text();
    await (await fetch(`${server.url}/b`, { method: 'POST' })).text();
    expect([...made.keys()]).toEqual(['GET:///a', 'POST:///b']);
    hang = true;
    const caller = new AbortController();
    const pending = fetch(`${server.url}/a`, { signal: caller.signal }).catch(() => 'aborted');
    await until(() => arrivals === 4);
    expect(made.get('GET:///a')!.settled).toEqual({ success: 2, failure: 0, release: 0 });
    caller.abort();
    expect(await pending).toBe('aborted');
    await until(() => made.get('GET:///a')!.settled.release === 1);
  });

  it('bounds the number of keyed sources', async () => {
    const keys: string[] = [];
    server = await listen(
      createServer(protectHandler((_q, res) => res.end(), { sourceFor: (k) => (keys.push(k), new TestBreaker({ name: k })), maxKeys: 2 })),
    );
    for (const p of ['/1', '/2', '/3', '/4', '/1']) await (await fetch(server.url + p)).text();
    expect(keys).toEqual(['GET:///1', 'GET:///2', '*']);
  });

  it('answers 500, without crashing, when the source fails instead of shedding', async () => {
    const errors: unknown[] = [];
    const broken: PermitSource = {
      name: 'broken',
      allow() {
        throw new TypeError('bug in the source');
      },
    };
    let ran = false;
    server = await listen(createServer(protectHandler(() => void (ran = true), { source: broken, onError: (e) => errors.push(e) })));
    expect((await fetch(server.url)).status).toBe(500);
    expect(ran).toBe(false);
    expect((errors[0] as Error).message).toBe('bug in the source');
  });

  it('rejects bad options', () => {
    expect(() => protectHandler(() => {}, {} as never)).toThrow(ConfigError);
    expect(() => protectHandler(() => {}, { source: new TestBreaker(), sourceFor: () => new TestBreaker() })).toThrow(/exactly one/);
    expect(() => protectHandler(() => {}, { source: new TestBreaker(), retryAfterMs: -1 })).toThrow(/retryAfterMs/);
  });
});
