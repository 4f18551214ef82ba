/**
 * Milliseconds to wait according to an HTTP `Retry-After` header: either
 * delay-seconds (`"2"`) or an HTTP-date, taken relative to `nowMs` (the
 * policy's clock, so tests on a TestClock agree with it). A date in the past
 * gives 0; a missing or malformed value gives `undefined`.
 *
 * @example
 * ```ts
 * parseRetryAfter('2', Date.now()); // 2000
 * parseRetryAfter('Wed, 21 Oct 2015 07:28:00 GMT', Date.now()); // ms until then, or 0
 * ```
 */
export function parseRetryAfter(value: string | null | undefined, nowMs: number): number | undefined {
  if (value == null) return undefined;
  const v = value.trim();
  if (v === '') return undefined;
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  // RFC 9110 dates always name the weekday or month in letters; bare numbers with signs or dots are malformed.
  if (!/[a-z]/i.test(v)) return undefined;
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}
