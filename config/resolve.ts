import type { Clock } from '../lib/clock.js';
import type { ConfigIssue } from '../lib/errors.js';

/**
 * Named values a config refers to: fallback handlers, predicates, signal
 * sources, stores. Functions cannot live in data; config names them.
 */
export type Handlers = Readonly<Record<string, unknown>>;

/** What building from config has at hand besides the handlers: the clock, the random source, the document parser. */
export interface BuildEnv {
  /** The clock of every policy built. @defaultValue the system clock */
  readonly clock?: Clock;
  /** The random source of every policy that draws one. @defaultValue `Math.random` */
  readonly random?: () => number;
  /**
   * Reads each document given (a YAML or JSON text, say) into a config: the
   * first one and every reload. A document it throws on is refused like an
   * invalid config (a `configRejected` event on reload, a `ConfigError` for
   * the first), and the config stream goes on.
   * @defaultValue none: the documents are configs already
   * @example
   * ```ts
   * fromConfig(yamlTexts$, handlers, { parse: YAML.parse });
   * ```
   */
  readonly parse?: (document: never) => unknown;
}

/**
 * Looks up named handlers while a config is built, collecting every missing
 * or ill-typed one as an issue with its path, so a `ConfigError` can list
 * them all at once.
 */
export class Resolver {
  /** Problems found so far. */
  readonly issues: ConfigIssue[] = [];

  constructor(
    readonly handlers: Handlers,
    readonly env: BuildEnv,
  ) {}

  /** The function named `name`, or a placeholder and an issue at `path`. */
  fn<F extends (...args: never[]) => unknown>(name: string, path: string): F {
    const value = this.handlers[name];
    if (typeof value !== 'function') {
      this.issues.push({
        path,
        message: value === undefined ? `no handler named "${name}" was given` : `handler "${name}" must be a function`,
      });
      return (() => undefined) as unknown as F;
    }
    return value as F;
  }

  /** The value named `name` if `check` accepts it, or `undefined` and an issue at `path`. */
  value<V>(name: string, path: string, check: (v: unknown) => v is V, what: string): V | undefined {
    const value = this.handlers[name];
    if (!check(value)) {
      this.issues.push({ path, message: value === undefined ? `no handler named "${name}" was given` : `handler "${name}" must be ${what}` });
      return undefined;
    }
    return value;
  }

  /** `fn` for an optional name. */
  optionalFn<F extends (...args: never[]) => unknown>(name: string | undefined, path: string): F | undefined {
    return name === undefined ? undefined : this.fn<F>(name, path);
  }
}
