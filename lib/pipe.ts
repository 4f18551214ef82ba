import { isObservable, type Observable } from 'rxjs';
import { systemClock, type Clock } from './clock.js';
import { callNext, executeWith } from './context.js';
import { ConfigError, type ConfigIssue } from './errors.js';
import { mergeEvents, type PolicyEvent } from './events.js';
import { ANSWER, RUN, type AltOf, type Chain, type ExecuteOptions, type ExecutionContext, type Operation, type Policy } from './policy.js';

/**
 * What keeps `value` from being a {@link Policy}, in words, or `undefined`
 * for a policy. The shape is checked, not the class, so a policy written by a
 * user or built by another copy of breakwater passes; a policy of another
 * library (cockatiel's have `execute` but no `[RUN]` and no `events$`) does not.
 */
function notAPolicy(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return `expected a breakwater Policy, got ${value === null ? 'null' : typeof value}`;
  const p = value as Partial<Policy<unknown>>;
  const missing: string[] = [];
  if (typeof p[RUN] !== 'function') missing.push('the [RUN] symbol method');
  if (!isObservable(p.events$)) missing.push('events$ (an Observable)');
  if (typeof p.name !== 'string') missing.push('name (a string)');
  if (typeof p.execute !== 'function') missing.push('execute (a method)');
  return missing.length === 0 ? undefined : `expected a breakwater Policy; missing: ${missing.join(', ')} (docs/composition.md shows how to write one)`;
}

/** @internal Throws a {@link ConfigError} at `label` listing every argument that is not a policy, by its position. */
export function checkPolicies(policies: readonly unknown[], label: string, offset = 0): void {
  const issues: ConfigIssue[] = [];
  policies.forEach((p, i) => {
    const problem = notAPolicy(p);
    if (problem !== undefined) issues.push({ path: `policies[${i + offset}]`, message: problem });
  });
  if (issues.length > 0) throw new ConfigError(label, issues);
}

function clockOf(policies: readonly Policy<unknown>[]): Clock {
  for (const p of policies) {
    const c = (p as { clock?: Clock }).clock;
    if (c !== undefined && typeof c.now === 'function') return c;
  }
  return systemClock;
}

/**
 * A composition of policies. The first policy is closest to the operation;
 * each next one wraps everything before it. Its `events$` merges its
 * policies' events (each carries its `policy` name).
 *
 * @typeParam T - the union of what its policies may answer instead of the operation.
 */
export class Pipeline<T = never> implements Policy<T> {
  declare readonly [ANSWER]?: () => T;
  readonly name: string;
  /** The policies, innermost first, nested pipelines flattened. */
  readonly policies: readonly Policy<unknown>[];
  readonly events$: Observable<PolicyEvent>;
  /** The clock of the root context. */
  readonly clock: Clock;
  private readonly head: Chain | undefined;

  constructor(policies: readonly Policy<unknown>[], options: { name?: string; clock?: Clock } = {}) {
    // Checked here, not at the first call: an object of another library would build and then fail inside rxjs or at execute.
    checkPolicies(policies, 'pipe');
    const flat: Policy<unknown>[] = [];
    for (const p of policies) {
      if (p instanceof Pipeline) flat.push(...(p.policies as Policy<unknown>[]));
      else flat.push(p);
    }
    this.policies = flat;
    this.name = options.name ?? 'pipeline';
    this.clock = options.clock ?? clockOf(flat);
    let head: Chain | undefined;
    for (const policy of flat) head = { policy, next: head };
    this.head = head;
    this.events$ = mergeEvents(flat.map((p) => p.events$));
  }

  /**
   * The health of each policy of the pipeline that reports one (breakers, keyed breakers, nested pipelines), in
   * order; `healthReport(pipeline)` turns it into one status.
   */
  health(): unknown[] {
    const out: unknown[] = [];
    for (const p of this.policies) {
      const h = (p as { health?: unknown }).health;
      if (typeof h === 'function') out.push(h.call(p));
    }
    return out;
  }

  execute<R>(op: Operation<R>, options?: ExecuteOptions): Promise<R | T> {
    return executeWith(this, op, options, this.clock);
  }

  [RUN]<R>(op: Operation<R>, ctx: ExecutionContext, next: Chain | undefined): Promise<R | T> {
    if (next === undefined) return callNext(op, ctx, this.head) as Promise<R | T>;
    // Used as a layer of someone else's chain: continue into `next` after our own layers.
    let head: Chain | undefined = next;
    for (const policy of this.policies) head = { policy, next: head };
    return callNext(op, ctx, head) as Promise<R | T>;
  }
}

/**
 * Composes policies: the first is closest to the operation, each next one
 * wraps everything before it, so `pipe(a, b, c)` is `c(b(a(op)))` and means
 * the same as `policy().a().b().c()`. The result type is the operation's
 * result or any policy's alternative answer.
 *
 * @example
 * ```ts
 * const p = pipe(timeout(300), retry({ maxAttempts: 3 }), fallback(() => null));
 * const user = await p.execute(getUser); // User | null
 * ```
 */
export function pipe<const P extends readonly Policy<unknown>[]>(...policies: P): Pipeline<AltOf<P[number]>> {
  return new Pipeline<AltOf<P[number]>>(policies);
}
