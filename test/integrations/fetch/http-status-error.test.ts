import { describe, expect, it } from 'vitest';
import { HttpStatusError, isHttpStatusError } from '../../../integrations/fetch/http-status-error.js';

describe('HttpStatusError, built from a response', () => {
  it('carries the status, the response, the Retry-After delay and the body it was given', () => {
    const response = new Response(null, { status: 429, statusText: 'Too Many Requests' });
    const error = new HttpStatusError(response, 2_000, 'slow down');
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('HttpStatusError');
    expect(error.code).toBe('HTTP_STATUS');
    expect(error.status).toBe(429);
    expect(error.response).toBe(response);
    expect(error.retryAfterMs).toBe(2_000);
    expect(error.body).toBe('slow down');
    // a Response built by hand has no url
    expect(error.message).toBe('HTTP 429 Too Many Requests from the server');
  });

  it('leaves the status text out when the response has none', () => {
    const error = new HttpStatusError(new Response(null, { status: 503 }), undefined, '');
    expect(error.message).toBe('HTTP 503 from the server');
    expect(error.retryAfterMs).toBeUndefined();
    expect(isHttpStatusError(error)).toBe(true);
  });
});
