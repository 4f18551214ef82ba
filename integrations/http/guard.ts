import type { ServerResponse } from 'node:http';
import { parseOptions } from '../../lib/schemas.js';
import { isThenable, KeyedSources, shedAnswer, type AsyncPermitSource, type Permit, type ShedAnswer } from '../shared/permit.js';
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
  private readonly isFailure: (status: number) => boolean;
  private readonly retryAfterMs: number;

  constructor(options: HttpGuardOptions | AsyncPermitSource, entry: string) {
    const o = parseOptions(HttpGuardOptionsSchema, 'allow' in options ? { source: options } : options, entry);
    this.single = o.source;
    this.keyed = o.sourceFor === undefined ? undefined : new KeyedSources(o.sourceFor, o.maxKeys);
    this.isFailure = o.isFailure ?? failureByDefault;
    this.retryAfterMs = o.retryAfterMs;
    this.onError = o.onError ?? ((error) => console.error('breakwater/http: handler failed', error));
  }

  /**
   * A permit for a call of `method` on `route`, or how to answer when it is
   * shed; a promise of either when the source takes time. Throws (or
   * rejects) when the source fails with anything but a shedding rejection.
   */
  admit(method: string | undefined, route: string): Permit | ShedAnswer | Promise<Permit | ShedAnswer> {
    const source = this.single ?? this.keyed!.get(`${method ?? 'GET'}://${route}`);
    let permit: Permit | PromiseLike<Permit>;
    try {
      permit = source.allow();
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
