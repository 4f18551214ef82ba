import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { pipe } from '../../../lib/pipe.js';
import { TestClock } from '../../../lib/testing.js';
import { fallback } from '../../../policies/fallback/index.js';
import { constant, retry } from '../../../policies/retry/index.js';
import { timeout } from '../../../policies/timeout/index.js';
import { HttpStatusError, isHttpStatusError, isNoRetryError, resilientFetch, type NoRetryError } from '../../../integrations/fetch/index.js';
import { TestBreaker } from '../helpers/test-breaker.js';
import { listen, until, type LocalServer } from '../helpers/http-server.js';

let server: LocalServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

type Reply = (req: IncomingMessage, res: ServerResponse) => void;
async function serve(...replies: Reply[]) {
  const seen: IncomingMessage[] = [];
  server = await listen((req, res) => {
    seen.push(req);
    replies[Math.min(seen.length - 1, replies.length - 1)]!(req, res);
  });
  return { url: server.url, seen };
}

const status =
  (code: number, body = '', headers: Record<string, string> = {}): Reply =>
  (_req, res) => {
    res.writeHead(code, headers);
    res.end(body);
  };

describe('HttpStatusError', () => {
  it('is named, coded and worded after the response', async () => {
    const { url } = await serve(status(503, 'down'), (_req, res) => {
      res.writeHead(502, '');
      res.end();
    });
    const http = resilientFetch(retry({ maxAttempts: 1 }));
    const first = (await http(`${url}/users/1`).catch((e: unknown) => e)) as HttpStatusError;
    expect(first).toBeInstanceOf(HttpStatusError);
    expect(first.name).toBe('HttpStatusError');
    expect(first.code).toBe('HTTP_STATUS');
    expect(first.message).toBe(`HTTP 503 Service Unavailable from ${url}/users/1`);
    const second = (await http(`${url}/users/2`).catch((e: unknown) => e)) as HttpStatusError;
    expect(second.message).toBe(`HTTP 502 from ${url}/users/2`);
  });

  it('says "the server" for a response without a url', async () => {
    const { url } = await serve(status(500, 'oops'));
    // a fetch that hands back a copy of the response, as a caching or proxying fetch does: no url
    const copying = async (input: string | URL | Request, init?: RequestInit) => {
      const res = await fetch(input, init);
      return new Response(res.body, { status: res.status, headers: res.headers });
    };
    const error = (await resilientFetch(retry({ maxAttempts: 1 }), copying)(url).catch((e: unknown) => e)) as HttpStatusError;
    expect(error.message).toBe('HTTP 500 from the server');
    expect(error.body).toBe('oops');
  });

  it('isHttpStatusError wants an object with code HTTP_STATUS and a response', () => {
    const response = new Response(null, { status: 500 });
    expect(isHttpStatusError(new HttpStatusError(response, undefined, ''))).toBe(true);
    expect(isHttpStatusError({ code: 'HTTP_STATUS', response })).toBe(true);
    expect(isHttpStatusError({ code: 'HTTP_STATUS' })).toBe(false);
    expect(isHttpStatusError({ code: 'TIMEOUT', response })).toBe(false);
    expect(isHttpStatusError(null)).toBe(false);
    expect(isHttpStatusError(undefined)).toBe(false);
    expect(isHttpStatusError('HTTP_STATUS')).toBe(false);
    expect(isHttpStatusError(Object.assign(() => {}, { code: 'HTTP_STATUS', response }))).toBe(false);
  });
});

describe('resilientFetch', () => {
  it('waits the 2 s of a 503 Retry-After on the policy clock before retrying, after draining the body', async () => {
    const { url, seen } = await serve(status(503, 'busy, come back later', { 'retry-after': '2' }), status(200, 'ok'));
    const clock = new TestClock(Date.parse('2026-11-29T16:00:00Z'));
    const r = retry({ maxAttempts: 2, clock });
    const retries: Array<{ delayMs: number; error: unknown; at: number }> = [];
    r.events$.subscribe((e) => {
      if (e.type === 'retry') retries.push({ delayMs: e.delayMs, error: e.error, at: clock.now() });
    });
    const http = resilientFetch(r);
    const start = clock.now();
    const res = http(`${url}/users/1`);
    await until(() => retries.length === 1);
    expect(retries[0]!.delayMs).toBe(2_000);
    const error = retries[0]!.error as HttpStatusError;
    expect(isHttpStatusError(error)).toBe(true);
    expect([error.status, error.retryAfterMs, error.body]).toEqual([503, 2_000, 'busy, come back later']);
    expect(error.response.bodyUsed).toBe(true);
    await clock.advance(1_999);
    expect(seen.length).toBe(1); // the retry's fetch has not been called: its sleep has not ended
    await clock.advance(1);
    const answer = await res;
    expect(answer.status).toBe(200);
    expect(await answer.text()).toBe('ok');
    expect(seen.length).toBe(2);
    expect(clock.now() - start).toBe(2_000);
    expect(clock.pendingTimers).toBe(0);
  });

  it('honours an HTTP-date Retry-After on a 429', async () => {
    const clock = new TestClock(Date.parse('2026-11-29T16:00:00Z'));
    const { url } = await serve(status(429, '', { 'retry-after': 'Sun, 29 Nov 2026 16:00:03 GMT' }), status(204));
    const r = retry({ maxAttempts: 2, clock });
    const delays: number[] = [];
    r.events$.subscribe((e) => e.type === 'retry' && delays.push(e.delayMs));
    const res = resilientFetch(r)(url);
    await until(() => delays.length === 1);
    expect(delays).toEqual([3_000]);
    await clock.advance(3_000);
    expect((await res).status).toBe(204);
  });

  it('gives up at once on a Retry-After beyond the retry cap, rejecting with the response error', async () => {
    const clock = new TestClock(Date.parse('2026-11-29T16:00:00Z'));
    const { url, seen } = await serve(status(503, 'maintenance', { 'retry-after': '86400' }), status(200, 'ok'));
    const r = retry({ maxAttempts: 3, clock });
    const reasons: string[] = [];
    r.events$.subscribe((e) => e.type === 'giveUp' && reasons.push(e.reason));
    const error = await resilientFetch(r)(url).then(
      () => expect.unreachable(),
      (e: unknown) => e,
    );
    expect(isHttpStatusError(error) && [error.status, error.retryAfterMs]).toEqual([503, 86_400_000]);
    expect(reasons).toEqual(['maxDelay']);
    expect(seen.length).toBe(1);
    expect(clock.pendingTimers).toBe(0);
  });

  it('cancels the request in flight when the caller aborts: the server sees the socket close', async () => {
    let closed = false;
    const { url, seen } = await serve((req, res) => {
      res.on('close', () => (closed = true));
    });
    const http = resilientFetch(retry({ maxAttempts: 3 }));
    const caller = new AbortController();
    const res = http(url, { signal: caller.signal });
    const settled = res.then(
      () => 'resolved',
      (e: unknown) => e,
    );
    await until(() => seen.length === 1);
    caller.abort(new Error('user went away'));
    expect(((await settled) as Error).message).toBe('user went away');
    await until(() => closed);
    expect(seen.length).toBe(1); // never retried
  });

  it('aborts the request when a timeout passes and retries it', async () => {
    const clock = new TestClock(1_000_000);
    const closes: number[] = [];
    const { url, seen } = await serve(
      (_req, res) => res.on('close', () => closes.push(1)),
      status(200, 'second'),
    );
    const p = pipe(timeout({ ms: 500, clock }), retry({ maxAttempts: 2, backoff: constant(0), clock }));
    const res = resilientFetch(p)(url);
    await until(() => seen.length === 1);
    await clock.advance(500);
    expect(await (await res).text()).toBe('second');
    await until(() => closes.length === 1);
  });

  it('returns responses that are not failures, and lets a breaker count 500s and shed', async () => {
    const { url, seen } = await serve(status(404, 'nope'), status(500, 'err'), status(500, 'err'), status(200, 'late'));
    const breaker = new TestBreaker({ failures: 2 });
    const http = resilientFetch(pipe(breaker, fallback(() => 'cached' as const)));
    const first = await http(url);
    expect(first).toBeInstanceOf(Response);
    expect((first as Response).status).toBe(404);
    expect(await http(url)).toBe('cached');
    expect(await http(url)).toBe('cached');
    expect(breaker.state).toBe('open');
    expect(await http(url)).toBe('cached'); // shed: no request
    expect(seen.length).toBe(3);
    expect(breaker.settled).toEqual({ success: 1, failure: 2, release: 0 });
  });

  it('takes a custom failure rule, passes execute options, and clones Request inputs per attempt', async () => {
    const bodies: string[] = [];
    const { url } = await serve(
      (req, res) => {
        let b = '';
        req.on('data', (c: Buffer) => (b += c));
        req.on('end', () => {
          bodies.push(b);
          res.writeHead(bodies.length === 1 ? 409 : 200);
          res.end();
        });
      },
    );
    const clock = new TestClock(1_000_000);
    const http = resilientFetch(retry({ maxAttempts: 2, backoff: constant(0), clock }), undefined, { isFailure: (r) => r.status === 409 });
    const res = await http(new Request(url, { method: 'POST', body: 'payload' }), { execute: { timeout: 60_000 } });
    expect(res.status).toBe(200);
    expect(bodies).toEqual(['payload', 'payload']);
  });

  it('calls the fetch it is given, passing the method, headers and body of init', async () => {
    const { url, seen } = await serve((req, res) => {
      let b = '';
      req.on('data', (c: Buffer) => (b += c));
      req.on('end', () => res.end(`${req.method} ${req.headers['x-tenant']} ${b}`));
    });
    const inputs: Array<string | URL | Request> = [];
    const counting = (input: string | URL | Request, init?: RequestInit) => (inputs.push(input), fetch(input, init));
    const http = resilientFetch(retry({ maxAttempts: 1 }), counting);
    const res = await http(`${url}/orders`, { method: 'PUT', headers: { 'x-tenant': 'acme' }, body: 'qty=2' });
    expect(await res.text()).toBe('PUT acme qty=2');
    expect(inputs).toEqual([`${url}/orders`]);
    expect(seen.length).toBe(1);
  });

  it("passes init.execute to the policy: its timeout aborts the request on the policy's clock", async () => {
    const clock = new TestClock(1_000_000);
    let closed = false;
    const { url, seen } = await serve((_req, res) => res.on('close', () => (closed = true)));
    const http = resilientFetch(retry({ maxAttempts: 1, clock }));
    const settled = http(url, { execute: { timeout: 300 } }).then(
      () => 'resolved',
      (e: unknown) => e,
    );
    await until(() => seen.length === 1);
    await clock.advance(299);
    expect(closed).toBe(false);
    await clock.advance(1);
    const error = (await settled) as Error;
    expect(error.name).toBe('TimeoutError');
    await until(() => closed);
  });

  it('reads at most maxDrainBytes of a failed body, then cancels the rest: the server sees the connection close', async () => {
    let closed = false;
    const { url } = await serve((_req, res) => {
      res.on('close', () => (closed = true));
      res.writeHead(503, { 'content-type': 'text/plain' });
      res.write('abcd'); // and never ends
    });
    const error = (await resilientFetch(retry({ maxAttempts: 1 }), undefined, { maxDrainBytes: 4 })(url).catch((e: unknown) => e)) as HttpStatusError;
    expect(isHttpStatusError(error)).toBe(true);
    expect(error.body).toBe('abcd');
    expect(error.response.body!.locked).toBe(false);
    await until(() => closed);
  });

  it('keeps only the first maxDrainBytes of a longer failed body, decoded as UTF-8', async () => {
    const { url } = await serve(status(500, 'abcdefghijkl'), status(500, 'café au lait'));
    const http = resilientFetch(retry({ maxAttempts: 1 }), undefined, { maxDrainBytes: 8 });
    const error = (await http(url).catch((e: unknown) => e)) as HttpStatusError;
    expect(error.body).toBe('abcdefgh');
    const whole = (await resilientFetch(retry({ maxAttempts: 1 }))(url).catch((e: unknown) => e)) as HttpStatusError;
    expect(whole.body).toBe('café au lait');
  });

  it('counts maxDrainBytes in bytes of UTF-8, and never keeps half a character', async () => {
    // 'é' is two bytes, '€' three.
    const { url } = await serve(status(500, 'éééé'), status(500, 'a€€'));
    const http = resilientFetch(retry({ maxAttempts: 1 }), undefined, { maxDrainBytes: 5 });
    const two = (await http(url).catch((e: unknown) => e)) as HttpStatusError;
    expect(two.body).toBe('éé');
    const one = (await http(url).catch((e: unknown) => e)) as HttpStatusError;
    expect(one.body).toBe('a€');
    expect(Buffer.byteLength(one.body)).toBeLessThanOrEqual(5);
  });

  it('gives an empty body for a failure without one', async () => {
    const { url } = await serve(status(204));
    const http = resilientFetch(retry({ maxAttempts: 1 }), undefined, { isFailure: (r) => r.status === 204 });
    const error = (await http(url).catch((e: unknown) => e)) as HttpStatusError;
    expect(isHttpStatusError(error) && [error.status, error.body, error.retryAfterMs]).toEqual([204, '', undefined]);
  });
});

describe('resilientFetch across the wire', () => {
  /** A fetch that records the headers of each request and answers with `reply`. */
  function recording(reply: () => Response = () => new Response('ok')) {
    const sent: Headers[] = [];
    const impl = async (input: string | URL | Request, init?: RequestInit) => {
      sent.push(new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined)));
      return reply();
    };
    return { sent, impl };
  }

  it("sends the whole ms left on the policy's clock, less the margin, the criticality and each attempt's number", async () => {
    const clock = new TestClock(1_000_000);
    const { sent, impl } = recording(() => new Response('', { status: 503 }));
    const http = resilientFetch(retry({ maxAttempts: 2, backoff: constant(0), clock }), impl, { deadlineMarginMs: 200 });
    await http('http://x/', { headers: { 'x-tenant': 'acme' }, execute: { deadline: 1_001_234.9, meta: { criticality: 'sheddable' } } }).catch(() => undefined);
    expect(sent.map((h) => [h.get('x-breakwater-timeout-ms'), h.get('x-breakwater-criticality'), h.get('x-breakwater-attempt'), h.get('x-tenant')])).toEqual([
      ['1034', 'sheddable', '1', 'acme'],
      ['1034', 'sheddable', '2', 'acme'],
    ]);
  });

  it('sends no deadline without one, no criticality unless meta names one, and nothing at all with propagate: false', async () => {
    const { sent, impl } = recording();
    await resilientFetch(retry(), impl)('http://x/', { execute: { meta: { criticality: 'urgent' } } });
    await resilientFetch(retry(), impl, { propagate: false })('http://x/', { execute: { timeout: 1_000, meta: { criticality: 'critical' } } });
    await resilientFetch(retry(), impl, { headers: { attempt: 'X-Try' } })(new Request('http://x/', { headers: { 'x-kept': 'yes' } }));
    expect(sent.map((h) => [...h.keys()].sort())).toEqual([['x-breakwater-attempt'], [], ['x-kept', 'x-try']]);
  });

  it('turns a failed response carrying the "do not retry" header into a NoRetryError that retry does not retry', async () => {
    const { sent, impl } = recording(() => new Response('gave up', { status: 503, headers: { 'x-breakwater-no-retry': '1' } }));
    const error = await resilientFetch(retry({ maxAttempts: 3, backoff: constant(0) }), impl)('http://x/').catch((e: unknown) => e);
    expect(sent).toHaveLength(1);
    expect(isNoRetryError(error)).toBe(true);
    const e = error as NoRetryError;
    expect([e.status, isHttpStatusError(e.cause) && e.cause.body]).toEqual([503, 'gave up']);
    // With propagate: false the header means nothing: the 503 is retried.
    const plain = recording(() => new Response('', { status: 503, headers: { 'x-breakwater-no-retry': '1' } }));
    await resilientFetch(retry({ maxAttempts: 3, backoff: constant(0) }), plain.impl, { propagate: false })('http://x/').catch(() => undefined);
    expect(plain.sent).toHaveLength(3);
  });

  it("runs inside init.ctx: its deadline and criticality are sent, and a call whose context is over is not made", async () => {
    const clock = new TestClock(5_000);
    const { sent, impl } = recording();
    const http = resilientFetch(retry({ clock }), impl);
    const ctx = { signal: new AbortController().signal, deadline: 5_700, attempt: 1, key: undefined, meta: { criticality: 'critical' }, clock };
    await http('http://x/', { ctx });
    expect([sent[0]!.get('x-breakwater-timeout-ms'), sent[0]!.get('x-breakwater-criticality')]).toEqual(['700', 'critical']);
    const over = new AbortController();
    over.abort(new Error('caller left'));
    await expect(http('http://x/', { ctx: { ...ctx, signal: over.signal } })).rejects.toThrow('caller left');
    const mine = new AbortController();
    mine.abort(new Error('mine'));
    await expect(http('http://x/', { ctx, signal: mine.signal })).rejects.toThrow('mine');
    expect(sent).toHaveLength(1);
  });

  it('refuses a bad deadlineMarginMs with a ConfigError naming it', () => {
    for (const bad of [-1, Infinity, Number.NaN, '5']) {
      expect(() => resilientFetch(retry(), undefined, { deadlineMarginMs: bad as number })).toThrow(/deadlineMarginMs: expected a finite number of milliseconds >= 0/);
    }
  });
});
