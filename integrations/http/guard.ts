import type { IncomingMessage, ServerResponse } from 'node:http';
import { systemClock } from '../../lib/clock.js';
import { CRITICALITY_META, type Criticality } from '../../lib/criticality.js';
import { isShedRejection, isTimeoutError } from '../../lib/errors.js';
import { parseOptions } from '../../lib/schemas.js';
import { isThenable, KeyedSources, shedAnswer, type AdmitRequest, type AsyncPermitSource, type Permit, type ShedAnswer } from '../shared/permit.js';
import {
  Incoming,
  incomingDeadline,
  isDownstreamFailure,
  parseAttempt,
  parseCriticality,
  parseRemainingMs,
  wireHeaders,
  type IncomingContext,
  type WireHeaders,
} from '../shared/wire.js';
import { HttpGuardOptionsSchema, type HttpGuardOptions } from './options.js';

const failureByDefault = (status: number): boolean => status >= 500;

/**
 * The part every HTTP integration shares: pick the source for a route,
 * admit or shed, and judge the final status (go-zero's breaker handler:
 * `status < 500` is a success).
 */
export class HttpGuard {
  /** Told when a handler throws. */
  readonly onError: (error: unknown) => void;
  private readonly single: AsyncPermitSource | undefined;
  private readonly keyed: KeyedSources<AsyncPermitSource> | undefined;
  /** Which final statuses count as failures. */
  readonly isFailure: (status: number) => boolean;
  private readonly retryAfterMs: number;
  /** The wire format's header names. */
  readonly headers: WireHeaders;
  private readonly maxDeadlineMs: number | undefined;
  /** The status of a request that arrives with no time left. */
  readonly expiredStatus: number;
  private readonly trusted: (req: IncomingMessage) => boolean;
  /** Which handler failures are answered "do not retry". */
  readonly noRetry: (error: unknown) => boolean;

  constructor(options: HttpGuardOptions | AsyncPermitSource, entry: string) {
    const o = parseOptions(HttpGuardOptionsSchema, 'allow' in options ? { source: options } : options, entry);
    this.single = o.source;
    this.keyed = o.sourceFor === undefined ? undefined : new KeyedSources(o.sourceFor, o.maxKeys);
    this.isFailure = o.isFailure ?? failureByDefault;
    this.retryAfterMs = o.retryAfterMs;
    this.onError = o.onError ?? ((error) => console.error('breakwater/http: handler failed', error));
    this.headers = wireHeaders(o.headers);
    this.maxDeadlineMs = o.maxDeadlineMs;
    this.expiredStatus = o.expiredStatus;
    this.trusted = o.trustCriticality ?? (() => false);
    this.noRetry = o.noRetry ?? isDownstreamFailure;
  }

  /**
   * When `req` must be answered by (clock ms; the caller's remaining time, cut to
   * `maxDeadlineMs`), `'expired'` when it has no time left, `undefined` for no deadline.
   */
  deadlineOf(req: IncomingMessage): number | 'expired' | undefined {
    return incomingDeadline(parseRemainingMs(req.headers[this.headers.deadline]), this.maxDeadlineMs, systemClock.now());
  }

  /** What the permit source is told of `req`: the criticality honoured for it, and its deadline. */
  admitRequest(req: IncomingMessage, deadline: number | undefined): AdmitRequest {
    return { meta: { [CRITICALITY_META]: this.criticalityOf(req) }, deadline };
  }

  /** The criticality honoured for `req`: its header's, from a trusted caller; else `'default'`. */
  criticalityOf(req: IncomingMessage): Criticality {
    return parseCriticality(req.headers[this.headers.criticality], this.trusted(req) === true);
  }

  /**
   * Opens an admitted request: its context (deadline, criticality, attempt) is
   * kept for {@link requestContext}, its deadline timer runs until `res`
   * closes (a client that leaves first cancels it), and a failed response
   * gets the "do not retry" header when a call it made downstream failed.
   */
  open(req: IncomingMessage, res: ServerResponse, deadline: number | undefined, keys: readonly object[] = [req]): Incoming {
    const incoming = new Incoming(deadline, this.criticalityOf(req), parseAttempt(req.headers[this.headers.attempt]));
    for (const key of keys) contexts.set(key, incoming.ctx);
    res.once('close', () => {
      if (res.writableFinished) incoming.end();
      else incoming.cancel(new Error('the client went away'));
    });
    const writeHead = res.writeHead;
    const guard = this;
    // Every answer passes here (an implicit header too), whoever writes it: the handler, Express or Fastify.
    res.writeHead = function (this: ServerResponse, ...args: unknown[]) {
      const status = typeof args[0] === 'number' ? args[0] : this.statusCode;
      if (incoming.downstreamFailed && guard.isFailure(status) && !this.headersSent) this.setHeader(guard.headers.noRetry, '1');
      return (writeHead as (...a: unknown[]) => ServerResponse).apply(this, args);
    } as ServerResponse['writeHead'];
    return incoming;
  }

  /**
   * A permit for a call of `method` on `route`, or how to answer when it is
   * shed; a promise of either when the source takes time. Throws (or
   * rejects) when the source fails with anything but a shedding rejection.
   */
  admit(method: string | undefined, route: string, request?: AdmitRequest): Permit | ShedAnswer | Promise<Permit | ShedAnswer> {
    const source = this.single ?? this.keyed!.get(`${method ?? 'GET'}://${route}`);
    let permit: Permit | PromiseLike<Permit>;
    try {
      permit = request === undefined ? source.allow() : source.allow(request);
    } catch (error) {
      return this.shed(error);
    }
    if (!isThenable<Permit>(permit)) return permit;
    return Promise.resolve(permit).then(undefined, (error: unknown) => this.shed(error));
  }

  private shed(error: unknown): ShedAnswer {
    const answer = shedAnswer(error, this.retryAfterMs);
    if (answer === undefined) throw error;
    return answer;
  }

  /** Settles `permit` with a final status. */
  settle(permit: Permit, status: number): void {
    if (this.isFailure(status)) permit.failure(new Error(`HTTP ${status}`));
    else permit.success();
  }

  /**
   * Settles `permit` when `res` closes: with its status when the response
   * was sent, as a failure when the handler threw, else (the client went
   * away first) by releasing it.
   */
  watch(permit: Permit, res: ServerResponse, threw: () => boolean): void {
    res.once('close', () => {
      if (threw()) permit.failure(new Error('handler threw'));
      else if (res.writableFinished) this.settle(permit, res.statusCode);
      else permit.release();
    });
  }
}

const contexts = new WeakMap<object, IncomingContext>();

/**
 * The context a guard (`protectHandler`, `protectExpress`, `protectFastify`)
 * gave an admitted request: the caller's deadline (clamped to the server's
 * `maxDeadlineMs`), a signal that aborts when it passes or the client goes
 * away, and the criticality honoured in `meta.criticality`. Run the
 * handler's work in it (`policy.execute(op, ctx)`, `http(url, { ctx })`), so
 * every policy obeys the deadline and calls further down carry it.
 * `undefined` for a request no guard admitted.
 *
 * @example
 * ```ts
 * const ctx = requestContext(req);
 * const user = await http(`${users}/42`, { ctx });
 * ```
 */
export function requestContext(req: IncomingMessage | { readonly raw?: unknown }): IncomingContext | undefined {
  const raw = (req as { raw?: unknown }).raw;
  return contexts.get(req) ?? (typeof raw === 'object' && raw !== null ? contexts.get(raw) : undefined);
}

/** The status a handler's failure is answered with: 504 for a deadline that passed, 503 for a shed call, else 500. */
export function failureStatus(error: unknown): number {
  return isTimeoutError(error) ? 504 : isShedRejection(error) ? 503 : 500;
}

/** Answers a request that arrived with no time left: `status` (504 by default), handler not called. */
export function answerExpired(res: ServerResponse, status: number): void {
  const body = 'Deadline Exceeded';
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** True for the shed answer of {@link HttpGuard.admit}. */
export function isShed(value: Permit | ShedAnswer): value is ShedAnswer {
  return typeof (value as ShedAnswer).status === 'number';
}

/** Answers a shed call on a node:http response: 503 or 429 with `Retry-After`, handler not called. */
export function answerShed(res: ServerResponse, shed: ShedAnswer): void {
  const body = shed.status === 429 ? 'Too Many Requests' : 'Service Unavailable';
  res.writeHead(shed.status, { 'retry-after': String(shed.retryAfterSeconds), 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** The path of a request URL without its query string. */
export function pathOf(url: string | undefined): string {
  if (url === undefined) return '/';
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
}

export { isThenable };
