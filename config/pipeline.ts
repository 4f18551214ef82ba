// The pipeline a config builds, and its hot reload. No zod here: what checks a config is given to it
// (the schemas of `breakwater/config` for fromConfig, the plain rules of the strategies for their code form).
import { merge, skip, type Observable, type Subscription } from 'rxjs';
import { systemClock } from '../lib/clock.js';
import { executeWith, runNext } from '../lib/context.js';
import { ConfigError, isConfigError, type ConfigIssue } from '../lib/errors.js';
import { EventSource, type PolicyEvent } from '../lib/events.js';
import type { ConfigRejectedEvent } from './events.js';
import { Pipeline } from '../lib/pipe.js';
import { ANSWER, RUN, type Chain, type ExecuteOptions, type ExecutionContext, type Operation, type Policy } from '../lib/policy.js';
import { buildEntry, reconfigureEntry } from './build.js';
import type { EntryConfig } from './entries.js';
import { Resolver, type BuildEnv, type Handlers } from './resolve.js';

/** @internal A config after validation: its entries, in order, and what built them. */
export interface Parsed {
  readonly name: string | undefined;
  /** The strategy the entries were written out from, if any. */
  readonly strategy: string | undefined;
  readonly entries: readonly EntryConfig[];
  readonly paths: readonly string[];
  /** Handlers the strategy adds to the user's. */
  readonly extra: Handlers;
  readonly bind: ((policies: readonly Policy<unknown>[]) => void) | undefined;
}

/** @internal The document as a config: `env.parse` applied, a throw a {@link ConfigError}. */
export function read(document: unknown, env: BuildEnv): unknown {
  if (env.parse === undefined) return document;
  try {
    return env.parse(document as never);
  } catch (error) {
    throw new ConfigError('config', [{ path: '', message: `the document could not be parsed: ${String(error)}` }]);
  }
}

function build(parsed: Parsed, handlers: Handlers, env: BuildEnv): Policy<unknown>[] {
  const resolver = new Resolver({ ...handlers, ...parsed.extra }, env);
  const policies: Policy<unknown>[] = [];
  const issues: ConfigIssue[] = [];
  parsed.entries.forEach((entry, i) => {
    const path = parsed.paths[i]!;
    try {
      policies.push(buildEntry(entry, resolver, path));
    } catch (error) {
      if (!isConfigError(error)) throw error;
      for (const issue of error.issues) issues.push({ path: issue.path ? `${path}.${issue.path}` : path, message: issue.message });
    }
  });
  issues.push(...resolver.issues);
  if (issues.length > 0) throw new ConfigError('config', issues);
  parsed.bind?.(policies);
  return policies;
}

const structureOf = (p: Parsed): string => (p.strategy ? `${p.strategy}: ` : '') + p.entries.map((e) => e.type).join(' → ');

/**
 * A pipeline built from data. Given an Observable of configs it follows it:
 * each new config that keeps the structure (the same policies in the same
 * order) changes options in place, keeping windows and breaker state; one
 * that is invalid, cannot be parsed or changes the structure is refused with
 * a `configRejected` event, and the last good config stays in force. An
 * error of the stream ends it (rxjs streams end on error): it is reported
 * the same way (reason `'error'`), never thrown, and the last good config
 * keeps serving.
 *
 * @typeParam T - the union of the answers of the handlers the config names.
 */
export class ConfigPipeline<T> implements Policy<T> {
  declare readonly [ANSWER]?: () => T;
  readonly name: string;
  readonly events$: Observable<PolicyEvent>;
  /** The policies, innermost first. */
  readonly pipeline: Pipeline<T>;
  private readonly configEvents = new EventSource();
  private current: Parsed;
  private version = 1;
  private sub: Subscription | undefined;

  /** @internal use `fromConfig` (breakwater/config) or a strategy. */
  constructor(
    parsed: Parsed,
    private readonly handlers: Handlers,
    private readonly env: BuildEnv,
    private readonly parse: (config: unknown) => Parsed,
  ) {
    this.current = parsed;
    this.name = parsed.name ?? parsed.strategy ?? 'config';
    this.pipeline = new Pipeline<T>(build(parsed, handlers, env), { name: this.name, clock: env.clock ?? systemClock });
    this.events$ = merge(this.pipeline.events$, this.configEvents.events$);
  }

  /** The config in force, as validated. */
  get config(): readonly EntryConfig[] {
    return this.current.entries;
  }

  /**
   * @internal follows `source` from now on; its first config is the one this
   * pipeline was built from. An error ends an rxjs stream: it is reported as a
   * rejected reload, never rethrown (that would crash the process), and the
   * last good config keeps serving.
   */
  follow(source: Observable<unknown>): void {
    this.sub = source.pipe(skip(1)).subscribe({
      next: (config) => this.update(config),
      error: (error: unknown) =>
        this.reject('error', [{ path: '', message: `the config stream failed and ended: ${String(error)}; the last good config keeps serving` }]),
    });
  }

  /**
   * Applies `config` (a document, when the pipeline was given `parse`) in
   * place if it is valid and keeps the structure; returns whether it was
   * applied (a `configRejected` event says why not). Never throws.
   */
  update(config: unknown): boolean {
    let parsed: Parsed;
    try {
      parsed = this.parse(read(config, this.env));
    } catch (error) {
      this.reject('invalid', isConfigError(error) ? error.issues : [{ path: '', message: String(error) }]);
      return false;
    }
    if (structureOf(parsed) !== structureOf(this.current)) {
      this.reject('structure', [{ path: 'policies', message: `structure changed from "${structureOf(this.current)}" to "${structureOf(parsed)}"` }]);
      return false;
    }
    // Validate everything (handlers included) before touching any policy: all or nothing.
    try {
      build(parsed, this.handlers, this.env);
    } catch (error) {
      this.reject('invalid', isConfigError(error) ? error.issues : [{ path: '', message: String(error) }]);
      return false;
    }
    const resolver = new Resolver({ ...this.handlers, ...parsed.extra }, this.env);
    const policies = this.pipeline.policies;
    let applied = 0;
    try {
      for (; applied < parsed.entries.length; applied++) {
        const entry = parsed.entries[applied]!;
        if (!reconfigureEntry(policies[applied]!, entry, resolver, parsed.paths[applied]!, this.current.entries[applied]!)) {
          throw new ConfigError(this.name, [{ path: '', message: `a ${entry.type} entry cannot change in place: keep it as it is, or build a new pipeline` }]);
        }
      }
    } catch (error) {
      // All or nothing: put back what was already changed (the old entries are known to apply).
      for (let i = 0; i < applied; i++) reconfigureEntry(policies[i]!, this.current.entries[i]!, resolver, this.current.paths[i]!, parsed.entries[i]!);
      const path = parsed.paths[applied]!;
      const issues = isConfigError(error) ? error.issues.map((x) => ({ path: x.path ? `${path}.${x.path}` : path, message: x.message })) : [{ path, message: String(error) }];
      this.reject('invalid', issues);
      return false;
    }
    this.current = parsed;
    this.version++;
    if (this.configEvents.observed) this.configEvents.emit({ type: 'configApplied', policy: this.name, version: this.version });
    return true;
  }

  /** Stops following the config stream. */
  dispose(): void {
    this.sub?.unsubscribe();
  }

  execute<R>(op: Operation<R>, options?: ExecuteOptions): Promise<R | T> {
    return executeWith(this, op, options, this.pipeline.clock);
  }

  [RUN]<R>(op: Operation<R>, ctx: ExecutionContext, next: Chain | undefined): Promise<R | T> {
    return next === undefined ? (this.pipeline[RUN](op, ctx, undefined) as Promise<R | T>) : runNext(op, ctx, { policy: this.pipeline, next });
  }

  private reject(reason: ConfigRejectedEvent['reason'], issues: readonly ConfigIssue[]): void {
    if (this.configEvents.observed) this.configEvents.emit({ type: 'configRejected', policy: this.name, reason, issues });
  }
}
