import { expect } from 'vitest';
import { ConfigError } from '../../../lib/errors.js';
import type { PermitSource } from '../../../integrations/shared/permit.js';

/** A permit source that admits everything and keeps what each permit was settled with. */
export function recording(): PermitSource & { ends: unknown[] } {
  const ends: unknown[] = [];
  return {
    name: 'recording',
    ends,
    allow: () => ({
      success: () => void ends.push('success'),
      failure: (e?: unknown) => void ends.push(e),
      release: () => void ends.push('release'),
    }),
  };
}

/** The ConfigError `f` throws; fails the test if it throws anything else or nothing. */
export function configError(f: () => unknown): ConfigError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return e as ConfigError;
  }
  return expect.unreachable('no ConfigError');
}
