import { isObservable, merge, skip, type Observable, type Subscription } from 'rxjs';
import { systemClock } from '../lib/clock.js';
import { executeWith, runNext } from '../lib/context.js';
import { ConfigError, isConfigError, type ConfigIssue } from '../lib/errors.js';
import { EventSource, type PolicyEvent } from '../lib/events.js';
import type { ConfigRejectedEvent } from './events.js';
import { toConfigIssues } from '../lib/schemas.js';
import { Pipeline } from '../lib/pipe.js';
import { ANSWER, RUN, type Chain, type ExecuteOptions, type ExecutionContext, type Operation, type Policy } from '../lib/policy.js';
import { buildEntry, reconfigureEntry, type EntryConfig } from './entries.js';
import { Resolver, type BuildEnv, type Handlers } from './resolve.js';
import { expand } from './strategies/expand.js';
import { StrategyConfigSchema, WriteBehindConfigSchema } from './strategies/schemas.js';
import { isWriteQueue } from './write-behind/queue.js';
import { writeBehind, WriteBehind, type Deliver } from './write-behind/write-behind.js';
import { PolicyConfigSchema } from './entries.js';
import { PoliciesConfigSchema } from './schema.js';
import type { ConfigAnswer } from './types.js';
import type { Backoff, BackoffFunction } from '../policies/retry/backoff.js';
import type { RetryBudget } from '../policies/retry/budget.js';

interface Parsed {
  readonly name: string | undefined;
  /** The strategy the entries were written out from, if any. */
  readonly strategy: string | undefined;
  readonly entries: readonly EntryConfig[];
  readonly paths: readonly string[];
  /** Handlers the strategy adds to the user's. */
  readonly extra: Handlers;
  readonly bind: ((policies: readonly Policy<unknown>[]) => void) | undefined;
}

/** The document as a config: `env.parse` applied, a throw a {@link ConfigError}. */
function read(document: unknown, env: BuildEnv): unknown {
  if (env.parse === undefined) return document;
  try {
    return env.parse(document as never);
  } catch (error) {
    throw new ConfigError('config', [{ path: '', message: `the document could not be parsed: ${String(error)}` }]);
  }
}

function parse(config: unknown): Parsed {
  if (typeof config === 'object' && config !== null && 'strategy' in config) return parseStrategy(config);
  const r = PoliciesConfigSchema.safeParse(config);
  if (!r.success) throw new ConfigError('config', toConfigIssues(r.error));
  const entries = r.data.policies;
  return { name: r.data.name, strategy: undefined, entries, paths: entries.map((_, i) => `policies[${i}]`), extra: {}, bind: undefined };
}

function parseStrategy(config: object): Parsed {
  const r = StrategyConfigSchema.safeParse(config);
  if (!r.success) throw new ConfigError('config', toConfigIssues(r.error));
  const expansion = expand(r.data);
  // The strategy's schema has checked these written-out entries already (each
  // refusal under the strategy option it came from); parsing applies their defaults.
  const entries: EntryConfig[] = expansion.entries.map(({ entry }) => PolicyConfigSchema.parse(entry));
  return {
    name: r.data.name,
    strategy: r.data.strategy,
    entries,
    paths: expansion.entries.map((x) => x.source),
    extra: expansion.handlers,
    bind: expansion.bind,
  };
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

  /** @internal use {@link fromConfig}. */
  constructor(
    parsed: Parsed,
    private readonly handlers: Handlers,
    private readonly env: BuildEnv,
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
      parsed = parse(read(config, this.env));
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

/**
 * What {@link fromConfig} returns: a {@link WriteBehind} writer for
 * `{ strategy: 'writeBehind' }`, a {@link ConfigPipeline} for everything else
 * (also when the config's type is unknown, e.g. parsed JSON).
 */
export type FromConfigResult<C, H> = 0 extends 1 & C
  ? ConfigPipeline<unknown>
  : [C] extends [{ strategy: 'writeBehind' }]
    ? WriteBehind
    : ConfigPipeline<ConfigAnswer<C, H>>;

/**
 * Builds a whole pipeline from data validated by {@link PipelineConfigSchema}.
 * Functions (fallback handlers, predicates, signal sources) are named in the
 * config and given in `handlers`; a missing name is a `ConfigError`, and
 * every problem is listed at once with its path (`policies[1].maxAttempts`).
 * Given an Observable of configs (which must emit its first one on
 * subscription, like a `BehaviorSubject`), the pipeline hot-reloads; give
 * `env.parse` (`YAML.parse`, `JSON.parse`) to follow a stream of texts, so
 * that a syntax error is a refused reload rather than an error that ends
 * the stream.
 *
 * @example
 * ```ts
 * const p = fromConfig(
 *   { policies: [{ type: 'timeout', ms: 300 }, { type: 'retry', maxAttempts: 3 }, { type: 'fallback', handler: 'guest' }] },
 *   { guest: () => GUEST_USER },
 * );
 * ```
 */
export function fromConfig<const C, const H extends Handlers = {}>(
  config: C | Observable<C>,
  handlers?: H,
  env: BuildEnv = {},
): FromConfigResult<C, H> {
  type Out = FromConfigResult<C, H>;
  const named: Handlers = handlers ?? {};
  if (!isObservable(config)) {
    const doc = read(config, env);
    if (typeof doc === 'object' && doc !== null && (doc as { strategy?: unknown }).strategy === 'writeBehind') {
      return writerFromConfig(doc, named, env) as Out;
    }
    return new ConfigPipeline(parse(doc), named, env) as Out;
  }
  let first: { value: unknown } | undefined;
  let failure: { error: unknown } | undefined;
  const probe = (config as Observable<unknown>).subscribe({ next: (c) => (first ??= { value: c }), error: (error: unknown) => (failure = { error }) });
  probe.unsubscribe();
  if (first === undefined) {
    const message = failure
      ? `the config stream failed before its first config: ${String(failure.error)}`
      : 'the config stream must emit its first config on subscription (a BehaviorSubject or startWith)';
    throw new ConfigError('config', [{ path: '', message }]);
  }
  const pipeline = new ConfigPipeline<ConfigAnswer<C, H>>(parse(read(first.value, env)), named, env);
  pipeline.follow(config as Observable<unknown>);
  return pipeline as Out;
}

/** Objects a strategy's code form passes to its retry policy as they are: they cannot be data. */
export interface RetryObjects {
  readonly backoff?: Backoff | BackoffFunction;
  readonly budget?: RetryBudget;
}

/**
 * @internal `strategies.<name>(options)`: the strategy from its data, each
 * retry entry taking the objects of `objects` in place of the data form
 * (which the schema keeps: a config file holds data only).
 */
export function strategyPipeline<T>(config: object, handlers: Handlers, objects: RetryObjects, env: BuildEnv): ConfigPipeline<T> {
  const parsed = parse(config);
  const entries = parsed.entries.map((e) => (e.type === 'retry' ? { ...e, ...objects } : e));
  return new ConfigPipeline<T>({ ...parsed, entries }, handlers, env);
}

/** Strategy #9 from data: the writer, with its functions and store resolved by name. */
function writerFromConfig(config: unknown, handlers: Handlers, env: BuildEnv): WriteBehind {
  const r = WriteBehindConfigSchema.safeParse(config);
  if (!r.success) throw new ConfigError('config', toConfigIssues(r.error));
  const { strategy: _s, deliver, keyOf, store, ...rest } = r.data;
  const resolver = new Resolver(handlers, env);
  const options = {
    ...rest,
    deliver: resolver.fn<Deliver<unknown>>(deliver, 'deliver'),
    ...(keyOf === undefined ? {} : { keyOf: resolver.fn<(payload: unknown) => string>(keyOf, 'keyOf') }),
    ...(store === undefined ? {} : { store: resolver.value(store, 'store', isWriteQueue, 'a WriteQueue (push, peek, ack)') }),
    clock: env.clock,
    random: env.random,
  };
  if (resolver.issues.length > 0) throw new ConfigError('config', resolver.issues);
  return writeBehind(options);
}
