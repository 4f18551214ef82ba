import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { resilientFetch } from '../../../integrations/fetch/resilient-fetch.js';
import { protectHandler, requestContext } from '../../../integrations/http/index.js';
import type { AsyncPermitSource } from '../../../integrations/shared/permit.js';
import { isNoRetryError } from '../../../integrations/shared/wire.js';
import { constant } from '../../../policies/retry/backoff.js';
import { retry } from '../../../policies/retry/retry.js';
import { listen, type LocalServer } from '../helpers/http-server.js';

/** Admits every call: the chain's hops test the wire, not a breaker. */
const open: AsyncPermitSource = { name: 'open', allow: () => ({ success() {}, failure() {}, release() {} }) };

const WORK_MS = 50;
const STEP_MS = 10;

interface Hop {
  calls: number;
  /** The deadline each request's handler got (this process's clock). */
  deadlines: (number | undefined)[];
  /** The remaining time each request arrived with (its deadline header, ms). */
  given: number[];
  /** When the hop began calling the next one, for each request. */
  forwarded: number[];
  /** When each step of work started, and the deadline of its request. */
  steps: { at: number; deadline: number }[];
}

const servers: LocalServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** 50 ms of work in steps of 10, each started only while the request still has time. */
async function work(hop: Hop, ctx: { deadline: number | undefined; signal: AbortSignal }): Promise<void> {
  for (let done = 0; done < WORK_MS; done += STEP_MS) {
    const now = Date.now();
    // What a handler does with its context: stop once its signal aborts or its deadline is reached.
    if (ctx.signal.aborted || (ctx.deadline !== undefined && now >= ctx.deadline)) throw ctx.signal.reason ?? new Error('deadline passed');
    hop.steps.push({ at: now, deadline: ctx.deadline ?? Infinity });
    await new Promise((r) => setTimeout(r, STEP_MS));
  }
}

/** Starts a hop: it works (if `working`), then calls `next` through resilientFetch under retry (or answers 503: the dead last dependency). */
async function hop(next: string | undefined, working: boolean, dead = false, propagate = true): Promise<{ url: string; hop: Hop }> {
  const h: Hop = { calls: 0, deadlines: [], given: [], forwarded: [], steps: [] };
  const http = resilientFetch(retry({ maxAttempts: 3, backoff: constant(1) }), undefined, { propagate });
  const handler = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    h.calls++;
    const ctx = requestContext(req)!;
    h.deadlines.push(ctx.deadline);
    h.given.push(Number(req.headers['x-breakwater-timeout-ms']));
    if (dead) {
      res.writeHead(503).end('down');
      return;
    }
    if (working) await work(h, ctx);
    if (next === undefined) {
      res.end('done');
      return;
    }
    h.forwarded.push(Date.now());
    const answer = await http(next, { ctx });
    res.end(await answer.text());
  };
  const server = await listen(protectHandler(handler, { source: open, onError: () => {} }));
  servers.push(server);
  return { url: server.url, hop: h };
}

describe('a chain of three node:http services (real sockets on loopback)', () => {
  it('the deadline set at the edge reaches hop 3 less the time spent at the hops before it, never more', async () => {
    const c = await hop(undefined, true);
    const b = await hop(c.url, true);
    const a = await hop(b.url, true);
    const edge = resilientFetch(retry({ maxAttempts: 1 }));
    const deadline = Date.now() + 10_000;
    const sent = Date.now();
    const res = await edge(a.url, { execute: { deadline } });
    expect(await res.text()).toBe('done');
    // When each hop's deadline started counting (its deadline less the time it was given), and how long it worked before forwarding.
    const start = (h: Hop) => h.deadlines[0]! - h.given[0]!;
    const spent = (h: Hop) => h.forwarded[0]! - start(h);
    expect(spent(a.hop)).toBeGreaterThanOrEqual(WORK_MS - STEP_MS);
    expect(spent(b.hop)).toBeGreaterThanOrEqual(WORK_MS - STEP_MS);
    // Never more: hop 3 is given at most what the edge had left, less the time spent at hops 1 and 2 (strict: transit can only take more).
    expect(a.hop.given[0]!).toBeLessThanOrEqual(deadline - sent);
    expect(c.hop.given[0]!).toBeLessThanOrEqual(a.hop.given[0]! - spent(a.hop) - spent(b.hop));
    expect(b.hop.given[0]!).toBeLessThanOrEqual(a.hop.given[0]! - spent(a.hop));
    // Within 50 ms: each hop counts from the request's arrival, so time on the wire is not lost, only whole-ms rounding
    // and the synchronous steps between a hop's forwarding and the header (no wait between them, even on a loaded machine).
    expect(c.hop.given[0]!).toBeGreaterThanOrEqual(a.hop.given[0]! - spent(a.hop) - spent(b.hop) - 50);
    // Against the edge's clock, time on the wire is lost too: a generous bound, so a loaded machine passes.
    expect(c.hop.given[0]!).toBeGreaterThan(deadline - sent - spent(a.hop) - spent(b.hop) - 2_000);
    expect(Math.abs(c.hop.deadlines[0]! - deadline)).toBeLessThan(2_000);
  });

  it('nothing runs at a hop once its deadline has passed, and a chain out of time stops on the way', async () => {
    const c = await hop(undefined, true);
    const b = await hop(c.url, true);
    const a = await hop(b.url, true);
    const edge = resilientFetch(retry({ maxAttempts: 1 }));
    // Less than three hops of work: the chain runs out of time on the way.
    const deadline = Date.now() + 2 * WORK_MS + 20;
    await expect(edge(a.url, { execute: { deadline } })).rejects.toThrow();
    // Let anything still running at a hop run on, if it would.
    await new Promise((r) => setTimeout(r, 4 * WORK_MS));
    const steps = [...a.hop.steps, ...b.hop.steps, ...c.hop.steps];
    expect(steps.length).toBeGreaterThan(0);
    for (const step of steps) expect(step.at).toBeLessThan(step.deadline);
    // Each hop's deadline is what its caller had left: hop 3 never finishes its 50 ms.
    expect(c.hop.steps.length).toBeLessThan(WORK_MS / STEP_MS);
    for (const h of [a.hop, b.hop, c.hop]) for (const d of h.deadlines) expect(d).toBeLessThan(deadline + 1_000);
  });

  it('each hop retries 3 times, the last dependency is down: it gets <= 3 calls per edge request, every other hop 1', async () => {
    const down = await hop(undefined, false, true);
    const c = await hop(down.url, false);
    const b = await hop(c.url, false);
    const a = await hop(b.url, false);
    const edge = resilientFetch(retry({ maxAttempts: 3, backoff: constant(1) }));
    for (let request = 1; request <= 2; request++) {
      const failed = await edge(a.url).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isNoRetryError(failed)).toBe(true);
      expect(a.hop.calls).toBe(request);
      expect(b.hop.calls).toBe(request);
      expect(c.hop.calls).toBe(request);
      expect(down.hop.calls).toBeLessThanOrEqual(3 * request);
      expect(down.hop.calls).toBeGreaterThan(3 * (request - 1));
    }
  });

  it('without the wire format the same chain multiplies its tries (3 x 3 x 3 x 3 at the dead end)', async () => {
    const down = await hop(undefined, false, true, false);
    const c = await hop(down.url, false, false, false);
    const b = await hop(c.url, false, false, false);
    const a = await hop(b.url, false, false, false);
    const edge = resilientFetch(retry({ maxAttempts: 3, backoff: constant(1) }), undefined, { propagate: false });
    await expect(edge(a.url)).rejects.toThrow(/HTTP 500/);
    expect(a.hop.calls).toBe(3);
    expect(down.hop.calls).toBe(81);
  });
});
