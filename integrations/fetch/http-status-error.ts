/**
 * A response that counts as a failure (by default 5xx and 429), thrown by
 * {@link resilientFetch} so that retries, breakers and fallbacks see it. Its
 * body has been drained (up to a bound) into {@link HttpStatusError.body} so
 * the connection can be reused; `retryAfterMs` comes from `Retry-After` and is
 * honoured by `retry` as the delay before the next attempt.
 *
 * @example
 * ```ts
 * try { await http('https://api.example/users'); }
 * catch (e) { if (isHttpStatusError(e) && e.status === 503) console.log(e.retryAfterMs); }
 * ```
 */
export class HttpStatusError extends Error {
  override readonly name = 'HttpStatusError';
  /** Always `'HTTP_STATUS'`. */
  readonly code = 'HTTP_STATUS' as const;
  /** The response's status code. */
  readonly status: number;
  /** The response (its body already consumed). */
  readonly response: Response;
  /** Milliseconds the server asked to wait (`Retry-After`), when it said. */
  readonly retryAfterMs: number | undefined;
  /** The start of the response body as text (at most the drain bound). */
  readonly body: string;

  constructor(response: Response, retryAfterMs: number | undefined, body: string) {
    super(`HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''} from ${response.url || 'the server'}`);
    this.status = response.status;
    this.response = response;
    this.retryAfterMs = retryAfterMs;
    this.body = body;
  }
}

/**
 * True for an {@link HttpStatusError} (by its `code`, so two copies of the package agree).
 * @example
 * ```ts
 * const retryable = (e: unknown) => isHttpStatusError(e) && e.status !== 501;
 * ```
 */
export function isHttpStatusError(value: unknown): value is HttpStatusError {
  return typeof value === 'object' && value !== null && (value as { code?: unknown }).code === 'HTTP_STATUS' && 'response' in value;
}
