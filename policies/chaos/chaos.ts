import { PolicyBase } from '../../lib/base.js';
import { systemClock } from '../../lib/clock.js';
import { runNext, toContext } from '../../lib/context.js';
import type { InjectedEvent } from './events.js';
import { checkOptions } from '../../lib/options.js';
import { thrownOutcome } from '../../lib/outcome.js';
import { RUN, type Chain, type ExecutionContext, type Operation } from '../../lib/policy.js';
import { sleep } from '../../lib/sleep.js';
import { chaosOptions, type ChaosOptions, type ChaosResult } from './options.js';

/**
 * Fault injection for your own resilience tests (Polly's Simmy): on a share
 * `injectionRate` of calls, adds latency, throws a fault, or answers a
 * substitute result without running the operation. One random draw per call
 * decides; an injected call gets the latency first (if any), then the fault or
 * the result (if any). Switch it at run time with `enable()` / `disable()` or
 * an `enabled(ctx)` function; a disabled policy draws nothing.
 *
 * @typeParam T - the substitute result's type.
 * @example
 * ```ts
 * const monkey = chaos({ latency: 2_000, injectionRate: 0.1, enabled: () => process.env.CHAOS === '1' });
 * const p = policy().use(monkey).timeout(500).retry();
 * ```
 */
export class ChaosPolicy<T = never> extends PolicyBase<T> {
  private rate: number;
  private fault: unknown;
  private latency: number | ((ctx: ExecutionContext) => number) | undefined;
  private result: ChaosResult<T> | undefined;
  private when: ((ctx: ExecutionContext) => boolean) | undefined;
  private on: boolean;
  private readonly random: () => number;

  constructor(options: ChaosOptions<T>) {
    const o = checkOptions(chaosOptions, options, 'chaos');
    super(o.name, o.clock ?? systemClock);
    this.random = o.random ?? Math.random;
    this.rate = o.injectionRate;
    this.on = true;
    this.apply(o);
  }

  /** Share of calls injected. */
  get injectionRate(): number {
    return this.rate;
  }

  /**
   * Hot reload: a new `injectionRate`, `fault`, `latency`, `result` and `enabled` from the next call (omitted ones
   * take their defaults, as at construction; the result type stays the one the policy was made with). A bad option
   * is a `ConfigError` and changes nothing.
   */
  reconfigure(options: Omit<ChaosOptions<T>, 'clock' | 'name' | 'random'>): void {
    this.apply(checkOptions(chaosOptions, { ...options, name: this.name }, this.name));
  }

  /** Takes the injection settings of checked options. */
  private apply(o: ReturnType<typeof chaosOptions>): void {
    this.rate = o.injectionRate;
    this.fault = o.fault;
    this.latency = o.latency;
    this.result = o.result as ChaosResult<T> | undefined;
    this.on = typeof o.enabled === 'boolean' ? o.enabled : true;
    this.when = typeof o.enabled === 'function' ? o.enabled : undefined;
  }

  /** Turns injection on from the next call (an `enabled(ctx)` function is still asked). */
  enable(): void {
    this.on = true;
  }

  /** Turns injection off from the next call. */
  disable(): void {
    this.on = false;
  }

  /** True while switched on (an `enabled(ctx)` function may still say no per call). */
  get enabled(): boolean {
    return this.on;
  }

  [RUN]<R>(op: Operation<R>, ctx: ExecutionContext, next: Chain | undefined): Promise<R | T> {
    if (!this.injects(ctx)) {
      // Disabled chaos costs nothing: a call that starts unobserved is passed through unwatched.
      if (!this.events.observed) return runNext(op, ctx, next);
      return this.observe(runNext(op, ctx, next), this.clock.now(), ctx);
    }
    // An injected call is watched whether or not anyone listens: a subscriber may join
    // during its injected latency, and must see its true duration.
    const start = this.clock.now();
    return this.observe(this.inject(op, ctx, next), start, ctx);
  }

  private injects(ctx: ExecutionContext): boolean {
    if (!this.on || this.rate === 0) return false;
    if (this.when !== undefined) {
      try {
        if (!this.when(ctx)) return false;
      } catch {
        return false;
      }
    }
    return this.random() < this.rate;
  }

  private async inject<R>(op: Operation<R>, ctx: ExecutionContext, next: Chain | undefined): Promise<R | T> {
    if (this.latency !== undefined) {
      const ms = this.latencyFor(ctx);
      this.injected('latency', ms);
      await sleep(this.clock, ms, toContext(ctx).scope);
    }
    if (this.fault !== undefined) {
      this.injected('fault');
      throw typeof this.fault === 'function' ? (this.fault as (ctx: ExecutionContext) => unknown)(ctx) : this.fault;
    }
    if (this.result !== undefined) {
      this.injected('result');
      return this.result(ctx);
    }
    return runNext(op, ctx, next);
  }

  private latencyFor(ctx: ExecutionContext): number {
    if (typeof this.latency === 'number') return this.latency;
    let ms: number;
    try {
      ms = this.latency!(ctx);
    } catch {
      return 0;
    }
    return typeof ms === 'number' && ms > 0 ? ms : 0;
  }

  private injected(kind: InjectedEvent['kind'], delayMs?: number): void {
    if (this.events.observed) this.events.emit({ type: 'injected', policy: this.name, kind, delayMs });
  }

  private observe<V>(p: Promise<V>, start: number, ctx: ExecutionContext): Promise<V> {
    return p.then(
      (value) => {
        if (this.events.observed) this.outcome('success', start);
        return value;
      },
      (error: unknown) => {
        if (this.events.observed) this.outcome(thrownOutcome(error, ctx), start, error);
        throw error;
      },
    );
  }
}

/**
 * Makes a {@link ChaosPolicy}. `T` is the substitute result's type:
 * `chaos({ result: () => 'x' as const })` widens a pipeline's result by `'x'`.
 * Defaults: injection rate 0.001, enabled, `Math.random`.
 *
 * @example
 * ```ts
 * const p = pipe(chaos({ fault: () => new Error('boom'), injectionRate: 0.2, random: seededRandom(7) }), retry());
 * ```
 */
export function chaos<T = never>(options: ChaosOptions<T>): ChaosPolicy<T> {
  return new ChaosPolicy<T>(options);
}
