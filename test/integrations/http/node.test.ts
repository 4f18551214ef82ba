import { createServer } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BrokenCircuitError, ConfigError, RateLimitedError } from '../../../lib/errors.js';
import { protectHandler, type AsyncPermitSource, type PermitSource } from '../../../integrations/http/index.js';
import { configError, recording } from '../helpers/checks.js';
import { TestBreaker } from '../helpers/test-breaker.js';
import { listen, until, type LocalServer } from '../helpers/http-server.js';
import { makeBreaker, tripShedRecover, type Backend } from './scenario.js';

let server: LocalServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const messageOf = (end: unknown): unknown => (end instanceof Error ? `Error: ${end.message}` : end);

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

  it('judges final statuses by isFailure, failing with "HTTP <status>"; a handler that throws fails with "handler threw" whatever its status', async () => {
    const source = recording();
    server = await listen(
      createServer(
        protectHandler(
          (req, res) => {
            if (req.url === '/throw') throw new Error('bug');
            res.statusCode = req.url === '/missing' ? 404 : req.url === '/fail' ? 500 : 200;
            res.end();
          },
          { source, isFailure: (status) => status === 404, onError: () => {} },
        ),
      ),
    );
    for (const [path, status] of [
      ['/missing', 404],
      ['/fail', 500],
      ['/throw', 500],
      ['/ok', 200],
    ] as const) {
      const before = source.ends.length;
      const res = await fetch(server.url + path);
      expect(res.status).toBe(status);
      await res.arrayBuffer();
      await until(() => source.ends.length === before + 1);
    }
    expect(source.ends.map(messageOf)).toEqual(['Error: HTTP 404', 'success', 'Error: handler threw', 'success']);
  });

  it('fails with the default rule as "HTTP 503", and tells console.error about a handler that throws when no onError is given', async () => {
    const source = recording();
    const logged: unknown[][] = [];
    const spy = vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void logged.push(args));
    try {
      const bug = new Error('handler bug');
      server = await listen(
        createServer(
          protectHandler((req, res) => {
            if (req.url === '/throw') throw bug;
            res.statusCode = 503;
            res.end();
          }, source),
        ),
      );
      expect((await fetch(`${server.url}/busy`)).status).toBe(503);
      expect((await fetch(`${server.url}/throw`)).status).toBe(500);
      await until(() => source.ends.length === 2);
      expect(source.ends.map(messageOf)).toEqual(['Error: HTTP 503', 'Error: handler threw']);
      expect(logged).toEqual([['breakwater/http: handler failed', bug]]);
    } finally {
      spy.mockRestore();
    }
  });

  it('cuts the response short when the handler rejects after sending headers, and counts a failure', async () => {
    const source = recording();
    const errors: unknown[] = [];
    server = await listen(
      createServer(
        protectHandler(
          async (_req, res) => {
            res.writeHead(200, { 'content-type': 'text/plain' });
            res.write('partial');
            await new Promise((r) => setTimeout(r, 10));
            throw new Error('late bug');
          },
          { source, onError: (e) => errors.push(e) },
        ),
      ),
    );
    const res = await fetch(server.url);
    expect(res.status).toBe(200);
    await expect(res.text()).rejects.toThrow();
    await until(() => source.ends.length === 1);
    expect(source.ends.map(messageOf)).toEqual(['Error: handler threw']);
    expect((errors[0] as Error).message).toBe('late bug');
  });

  it('answers a shed call with a plain-text body and its length: "Too Many Requests" for 429, "Service Unavailable" for 503', async () => {
    let error: unknown = new RateLimitedError('limiter', 1_000);
    const source: PermitSource = {
      name: 'shedding',
      allow() {
        throw error;
      },
    };
    let ran = 0;
    server = await listen(createServer(protectHandler(() => void ran++, source)));
    const limited = await fetch(server.url);
    expect([limited.status, limited.headers.get('content-type'), limited.headers.get('content-length'), await limited.text()]).toEqual([
      429,
      'text/plain; charset=utf-8',
      '17',
      'Too Many Requests',
    ]);
    error = new BrokenCircuitError('breaker', 4_001);
    const open = await fetch(server.url);
    expect([open.status, open.headers.get('retry-after'), open.headers.get('content-length'), await open.text()]).toEqual([
      503,
      '5',
      '19',
      'Service Unavailable',
    ]);
    expect(ran).toBe(0);
  });

  it('gives retryAfterMs, rounded up to seconds, as Retry-After when the rejection carries no delay', async () => {
    const source: PermitSource = {
      name: 'sre',
      allow() {
        throw new BrokenCircuitError('sre', undefined);
      },
    };
    server = await listen(createServer(protectHandler(() => {}, { source, retryAfterMs: 2_500 })));
    const res = await fetch(server.url);
    expect([res.status, res.headers.get('retry-after')]).toEqual([503, '3']);
  });

  it('answers 500 and tells onError when an asynchronous source rejects with something other than a shedding rejection', async () => {
    const errors: unknown[] = [];
    const source: AsyncPermitSource = { name: 'async-broken', allow: () => Promise.reject(new TypeError('async bug')) };
    let ran = false;
    server = await listen(createServer(protectHandler(() => void (ran = true), { source, onError: (e) => errors.push(e) })));
    expect((await fetch(server.url)).status).toBe(500);
    expect(ran).toBe(false);
    expect(errors.map((e) => (e as Error).message)).toEqual(['async bug']);
  });

  it('refuses each bad option with a ConfigError naming it', () => {
    const source = new TestBreaker();
    const issues = (options: unknown) => configError(() => protectHandler(() => {}, options as never)).issues;
    expect(configError(() => protectHandler(() => {}, {} as never)).message).toBe('invalid protectHandler options: source: give exactly one of source and sourceFor');
    expect(issues({ source: {} })).toEqual([{ path: 'source', message: 'expected a permit source (an object with allow())' }]);
    expect(issues({ source, maxKeys: 1.5 }).map((i) => i.path)).toEqual(['maxKeys']);
    expect(issues({ source, maxKeys: 0 }).map((i) => i.path)).toEqual(['maxKeys']);
    expect(issues({ source, bogus: 1 })).toEqual([{ path: 'bogus', message: 'unknown option' }]);
    expect(issues({ source, onError: 3 })).toEqual([{ path: 'onError', message: 'expected a function' }]);
  });

  it('rejects bad options', () => {
    expect(() => protectHandler(() => {}, {} as never)).toThrow(ConfigError);
    expect(() => protectHandler(() => {}, { source: new TestBreaker(), sourceFor: () => new TestBreaker() })).toThrow(/exactly one/);
    expect(() => protectHandler(() => {}, { source: new TestBreaker(), retryAfterMs: -1 })).toThrow(/retryAfterMs/);
  });
});
