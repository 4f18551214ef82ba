import { isObservable, type Observable } from 'rxjs';
import { ConfigError } from '../lib/errors.js';
import { toConfigIssues } from '../lib/schemas.js';
import type { EntryConfig } from './entries.js';
import { ConfigPipeline, read, type Parsed } from './pipeline.js';
import { Resolver, type BuildEnv, type Handlers } from './resolve.js';
import { expand } from './strategies/expand.js';
import { StrategyConfigSchema, WriteBehindConfigSchema } from './strategies/schemas.js';
import { isWriteQueue } from './write-behind/queue.js';
import { writeBehind, type WriteBehind, type Deliver } from './write-behind/write-behind.js';
import { PolicyConfigSchema } from './entries.js';
import { PoliciesConfigSchema } from './schema.js';
import type { ConfigAnswer } from './types.js';

/** A pipeline config or a strategy config, checked by the schemas (a `ConfigError` lists every problem). */
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
    return new ConfigPipeline(parse(doc), named, env, parse) as Out;
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
  const pipeline = new ConfigPipeline<ConfigAnswer<C, H>>(parse(read(first.value, env)), named, env, parse);
  pipeline.follow(config as Observable<unknown>);
  return pipeline as Out;
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
