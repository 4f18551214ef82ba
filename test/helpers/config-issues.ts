import { isConfigError } from '../../lib/errors.js';

/** The issues (path and message) of the ConfigError `f` throws; fails when it throws something else or nothing. */
export function issuesOf(f: () => unknown): { path: string; message: string }[] {
  try {
    f();
  } catch (e) {
    if (isConfigError(e)) return e.issues.map((i) => ({ path: i.path, message: i.message }));
    throw e;
  }
  throw new Error('expected a ConfigError');
}
