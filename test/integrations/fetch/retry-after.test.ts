import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from '../../../integrations/fetch/retry-after.js';

describe('parseRetryAfter', () => {
  it('reads delay-seconds and HTTP-dates against the given now', () => {
    const now = Date.parse('Sun, 29 Nov 2026 16:00:00 GMT');
    expect(parseRetryAfter('2', now)).toBe(2_000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('Sun, 29 Nov 2026 16:00:05 GMT', now)).toBe(5_000);
    expect(parseRetryAfter('Sun, 29 Nov 2026 15:00:00 GMT', now)).toBe(0);
    for (const bad of [null, undefined, '', '-1', '1.5', 'soon', '1e3']) expect(parseRetryAfter(bad, now)).toBeUndefined();
  });

  it('reads a date written in capitals, and no date lies before the given now', () => {
    const now = Date.parse('Sun, 29 Nov 2026 16:00:00 GMT');
    expect(parseRetryAfter('SUN, 29 NOV 2026 16:00:05 GMT', now)).toBe(5_000);
    expect(parseRetryAfter('Sun, 29 Nov 2026 16:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('Sun, 29 Nov 2026 16:00:01 GMT', now + 1_000)).toBe(0);
    expect(parseRetryAfter('   ', now)).toBeUndefined();
  });
});
