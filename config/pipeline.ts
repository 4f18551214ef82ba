// The pipeline a config builds, and its hot reload. No zod here: what checks a config is given to it
// (the schemas of `breakwater/config` for fromConfig, the plain rules of the strategies for their code form).
import { BehaviorSubject, merge, skip, switchMap, type Observable, type Subscription } from 'rxjs';
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
  if (issues.length > 0) {
    disposeAll(policies);
    throw new ConfigError('config', issues);
  }
  return policies;
}

/** Lets go of what `policies` follow (a degrade policy's Observable signals): they will not run again. */
function disposeAll(policies: readonly Policy<unknown>[]): void {
  for (const p of policies) (p as { dispose?: () => void }).dispose?.();
}

/**
 * What an entry is across reloads: its type and name, and its rank among the entries of that type and name
 * (unnamed entries count as one name). An entry of the new config with the identity of an old one is the same
 * policy, changed in place; any other is built afresh.
 */
function identities(entries: readonly EntryConfig[]): string[] {
  const seen = new Map<string, number>();
  return entries.map((e) => {
    const name = (e as { name?: unknown }).name;
    const base = `${e.type}:${typeof name === 'string' ? name : ''}`;
    const rank = seen.get(base) ?? 0;
    seen.set(base, rank + 1);
    return `${base}#${rank}`;
  });
}

/** The policies a config builds, and what it says of them, for the pipeline in force. */
interface InForce {
  readonly parsed: Parsed;
  /** One policy per entry, in the entries' order (the pipeline may flatten nested pipelines). */
  readonly policies: readonly Policy<unknown>[];
}

/**
 * A pipeline built from data. Given an Observable of configs it follows it:
 * each new valid config takes effect at once. A policy the new config keeps
 * (an entry of the same type and name; unnamed entries of a type are matched
 * in order) changes its options in place, keeping its windows, breaker state,
 * tokens and stored values; an entry added or renamed builds a new policy; a
 * removed one is dropped (calls already running finish where they started).
 * When the policies or their order change, the pipeline is rebuilt around the
 * kept ones (`configApplied` says `rebuilt: true`). A config that is invalid,
 * cannot be parsed, or asks a kept policy to change what it cannot change in
 * place (a breaker's window shape, a cache's store) is refused with a
 * `configRejected` event naming why, and the last good config stays in force.
 * An error of the stream ends it (rxjs streams end on error): it is reported
 * the same way (reason `'error'`), never thrown, and the last good config
 * keeps serving.
 *
 * @typeParam T - the union of the answers of the handlers the config names.
 */
export class ConfigPipeline<T> implements Policy<T> {
  declare readonly [ANSWER]?: () => T;
  readonly name: string;
  readonly events$: Observable<PolicyEvent>;
  private readonly configEvents = new EventSource();
  private readonly pipelines: BehaviorSubject<Pipeline<T>>;
  private current: InForce;
  private version = 1;
  private sub: Subscription | undefined;

  /** @internal use `fromConfig` (breakwater/config) or a strategy. */
  constructor(
    parsed: Parsed,
    private readonly handlers: Handlers,
    private readonly env: BuildEnv,
    private readonly parse: (config: unknown) => Parsed,
  ) {
    this.name = parsed.name ?? parsed.strategy ?? 'config';
    const policies = build(parsed, handlers, env);
    parsed.bind?.(policies);
    this.current = { parsed, policies };
    this.pipelines = new BehaviorSubject(this.assemble(policies));
    // A rebuilt pipeline's events replace the old one's; a kept policy's events go on through the new one.
    this.events$ = merge(this.pipelines.pipe(switchMap((p) => p.events$)), this.configEvents.events$);
  }

  /**
   * The pipeline in force: its policies, innermost first. A reload that adds, removes or reorders policies
   * replaces it (read it again after a `configApplied` event with `rebuilt: true`).
   */
  get pipeline(): Pipeline<T> {
    return this.pipelines.value;
  }

  /** The config in force, as validated. */
  get config(): readonly EntryConfig[] {
    return this.current.parsed.entries;
  }

  /** The health of the pipeline in force (see `Pipeline.health`). */
  health(): unknown[] {
    return this.pipeline.health();
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
   * Applies `config` (a document, when the pipeline was given `parse`): kept
   * policies change in place, added ones are built, and the pipeline is
   * rebuilt when its policies or their order change. All or nothing: returns
   * whether it was applied (a `configRejected` event says why not). Never
   * throws.
   */
  update(config: unknown): boolean {
    let parsed: Parsed;
    let candidates: Policy<unknown>[];
    try {
      parsed = this.parse(read(config, this.env));
      // Validate everything (handlers included) before touching any policy; the new entries' policies come from here.
      candidates = build(parsed, this.handlers, this.env);
    } catch (error) {
      this.reject('invalid', isConfigError(error) ? error.issues : [{ path: '', message: String(error) }]);
      return false;
    }
    const before = this.current;
    const kept = new Map(identities(before.parsed.entries).map((id, i) => [id, i]));
    const resolver = new Resolver({ ...this.handlers, ...parsed.extra }, this.env);
    const ids = identities(parsed.entries);
    const next: Policy<unknown>[] = [];
    const changed: number[] = [];
    for (const [i, id] of ids.entries()) {
      const j = kept.get(id);
      if (j === undefined) {
        next.push(candidates[i]!);
        continue;
      }
      const entry = parsed.entries[i]!;
      const path = parsed.paths[i]!;
      let issues: readonly ConfigIssue[] | undefined;
      try {
        const why = reconfigureEntry(before.policies[j]!, entry, resolver, path, before.parsed.entries[j]!);
        if (why !== undefined) {
          issues = [{ path, message: `cannot change in place (${why}): keep it as it is, or give it another name to build a new ${entry.type} (its state starts afresh)` }];
        }
      } catch (error) {
        issues = isConfigError(error) ? error.issues.map((x) => ({ path: x.path ? `${path}.${x.path}` : path, message: x.message })) : [{ path, message: String(error) }];
      }
      if (issues !== undefined) {
        // All or nothing: put back what was already changed (the old entries are known to apply).
        for (const k of changed) {
          const m = kept.get(ids[k]!)!;
          reconfigureEntry(before.policies[m]!, before.parsed.entries[m]!, resolver, before.parsed.paths[m]!, parsed.entries[k]!);
        }
        disposeAll(candidates);
        this.reject('invalid', issues);
        return false;
      }
      changed.push(i);
      next.push(before.policies[j]!);
    }
    const rebuilt = next.length !== before.policies.length || next.some((p, i) => p !== before.policies[i]);
    this.current = { parsed, policies: rebuilt ? next : before.policies };
    parsed.bind?.(this.current.policies);
    // the candidates built for kept entries only checked them
    disposeAll(candidates.filter((p) => !next.includes(p)));
    if (rebuilt) {
      this.pipelines.next(this.assemble(next));
      disposeAll(before.policies.filter((p) => !next.includes(p)));
    }
    this.version++;
    if (this.configEvents.observed) this.configEvents.emit({ type: 'configApplied', policy: this.name, version: this.version, rebuilt });
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
    const pipeline = this.pipeline;
    return next === undefined ? (pipeline[RUN](op, ctx, undefined) as Promise<R | T>) : runNext(op, ctx, { policy: pipeline, next });
  }

  /** The pipeline of `policies`. */
  private assemble(policies: readonly Policy<unknown>[]): Pipeline<T> {
    return new Pipeline<T>(policies, { name: this.name, clock: this.env.clock ?? systemClock });
  }

  private reject(reason: ConfigRejectedEvent['reason'], issues: readonly ConfigIssue[]): void {
    if (this.configEvents.observed) this.configEvents.emit({ type: 'configRejected', policy: this.name, reason, issues });
  }
}
