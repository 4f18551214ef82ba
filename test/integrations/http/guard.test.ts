import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { BulkheadRejectedError, RateLimitedError } from '../../../lib/errors.js';
import { answerShed, HttpGuard, isShed, pathOf } from '../../../integrations/http/guard.js';
import type { AsyncPermitSource, Permit } from '../../../integrations/shared/permit.js';

/** A permit that writes down how it was settled. */
function permit(log: unknown[]): Permit {
  return {
    success: () => void log.push('success'),
    failure: (e) => void log.push(['failure', (e as Error).message]),
    release: () => void log.push('release'),
  };
}

/** A source whose allow() answers with `answer()` and counts its calls. */
function source(name: string, answer: () => Permit | PromiseLike<Permit>): AsyncPermitSource & { calls: number } {
  const s = { name, calls: 0, allow: () => (s.calls++, answer()) };
  return s;
}

describe('HttpGuard.admit', () => {
  it('a source alone (or as { source }) admits every route through it', () => {
    const log: unknown[] = [];
    const p = permit(log);
    const s = source('one', () => p);
    for (const g of [new HttpGuard(s, 'test'), new HttpGuard({ source: s }, 'test')]) {
      expect(g.admit('GET', '/a')).toBe(p);
      expect(g.admit('POST', '/b')).toBe(p);
    }
    expect(s.calls).toBe(4);
  });

  it('sourceFor makes one source per method and route (GET when no method), on first use', () => {
    const keys: string[] = [];
    const g = new HttpGuard({ sourceFor: (key) => (keys.push(key), source(key, () => permit([]))) }, 'test');
    g.admit('GET', '/users/:id');
    g.admit('GET', '/users/:id');
    g.admit('DELETE', '/users/:id');
    g.admit(undefined, '/health');
    expect(keys).toEqual(['GET:///users/:id', 'DELETE:///users/:id', 'GET:///health']);
  });

  it('past maxKeys, new routes share the source of key *', () => {
    const keys: string[] = [];
    const g = new HttpGuard({ sourceFor: (key) => (keys.push(key), source(key, () => permit([]))), maxKeys: 1 }, 'test');
    g.admit('GET', '/a');
    g.admit('GET', '/b');
    g.admit('GET', '/c');
    expect(keys).toEqual(['GET:///a', '*']);
  });

  it('a shedding rejection, thrown or rejected, becomes the answer: 429 or 503 with Retry-After', async () => {
    const limited = new HttpGuard(source('rl', () => {
      throw new RateLimitedError('rl', 1_500);
    }), 'test');
    expect(limited.admit('GET', '/')).toEqual({ status: 429, retryAfterSeconds: 2 });
    const full = new HttpGuard({ source: source('bh', () => Promise.reject(new BulkheadRejectedError('bh'))), retryAfterMs: 3_000 }, 'test');
    await expect(full.admit('GET', '/')).resolves.toEqual({ status: 503, retryAfterSeconds: 3 });
  });

  it('a source that takes time gives a promise of the permit', async () => {
    const p = permit([]);
    const g = new HttpGuard(source('later', () => Promise.resolve(p)), 'test');
    const admitted = g.admit('GET', '/');
    expect(admitted).toBeInstanceOf(Promise);
    expect(await admitted).toBe(p);
  });

  it('any other failure of the source is rethrown (sync) or rejected (async): a bug, not a shed call', async () => {
    const bug = new TypeError('bug');
    const sync = new HttpGuard(source('s', () => {
      throw bug;
    }), 'test');
    expect(() => sync.admit('GET', '/')).toThrow(bug);
    const async = new HttpGuard(source('a', () => Promise.reject(bug)), 'test');
    await expect(async.admit('GET', '/')).rejects.toBe(bug);
  });
});

describe('HttpGuard.settle', () => {
  it('by default a status >= 500 is a failure named after it; below, a success', () => {
    const log: unknown[] = [];
    const g = new HttpGuard(source('s', () => permit(log)), 'test');
    g.settle(permit(log), 500);
    g.settle(permit(log), 503);
    g.settle(permit(log), 499);
    g.settle(permit(log), 200);
    expect(log).toEqual([['failure', 'HTTP 500'], ['failure', 'HTTP 503'], 'success', 'success']);
  });

  it('isFailure decides instead when given', () => {
    const log: unknown[] = [];
    const g = new HttpGuard({ source: source('s', () => permit(log)), isFailure: (status) => status === 429 }, 'test');
    g.settle(permit(log), 429);
    g.settle(permit(log), 500);
    expect(log).toEqual([['failure', 'HTTP 429'], 'success']);
  });
});

describe('HttpGuard.watch', () => {
  /** A response stand-in: closes when told, finished or not. */
  const response = (statusCode: number, writableFinished: boolean) => Object.assign(new EventEmitter(), { statusCode, writableFinished }) as unknown as ServerResponse;

  it('settles on close: a handler that threw is a failure; a sent response is judged by its status; else the client left (release)', () => {
    const g = new HttpGuard(source('s', () => permit([])), 'test');
    const log: unknown[] = [];
    const cases: [ServerResponse, boolean][] = [
      [response(200, true), true],
      [response(502, true), false],
      [response(200, true), false],
      [response(200, false), false],
    ];
    for (const [res, threw] of cases) {
      const before = log.length;
      g.watch(permit(log), res, () => threw);
      expect(log).toHaveLength(before); // nothing until the response closes
      res.emit('close');
      expect(log).toHaveLength(before + 1);
    }
    expect(log).toEqual([['failure', 'handler threw'], ['failure', 'HTTP 502'], 'success', 'release']);
  });
});

describe('HttpGuard.onError', () => {
  it('is the one given', () => {
    const seen: unknown[] = [];
    const g = new HttpGuard({ source: source('s', () => permit([])), onError: (e) => void seen.push(e) }, 'test');
    g.onError('x');
    expect(seen).toEqual(['x']);
  });
});

describe('isShed', () => {
  it('tells a shed answer from a permit', () => {
    expect(isShed({ status: 503, retryAfterSeconds: 1 })).toBe(true);
    expect(isShed(permit([]))).toBe(false);
  });
});

describe('answerShed', () => {
  it('writes the status, Retry-After and a plain-text reason, without calling the handler', () => {
    for (const [status, body] of [
      [429, 'Too Many Requests'],
      [503, 'Service Unavailable'],
    ] as const) {
      const written: unknown[] = [];
      const res = { writeHead: (...a: unknown[]) => void written.push(['head', ...a]), end: (b: unknown) => void written.push(['end', b]) } as unknown as ServerResponse;
      answerShed(res, { status, retryAfterSeconds: 7 });
      expect(written).toEqual([
        ['head', status, { 'retry-after': '7', 'content-type': 'text/plain; charset=utf-8', 'content-length': body.length }],
        ['end', body],
      ]);
    }
  });
});

describe('pathOf', () => {
  it('drops the query string; no URL is /', () => {
    expect(pathOf('/users/1?fields=name')).toBe('/users/1');
    expect(pathOf('/users/1')).toBe('/users/1');
    expect(pathOf('/?')).toBe('/');
    expect(pathOf(undefined)).toBe('/');
  });
});
