import { PolicyBase } from '../../lib/base.js';
import { systemClock, type Clock } from '../../lib/clock.js';
import { runNext } from '../../lib/context.js';
import { checkOptions } from '../../lib/options.js';
import { thrownOutcome } from '../../lib/outcome.js';
import { RUN, type Chain, type ExecutionContext, type Operation } from '../../lib/policy.js';
import { DecisionTree } from './decision-tree.js';
import { degradeOptions, type DegradeHandler, type DegradeInfo, type DegradeOptions, type DegradePredicate } from './options.js';
import { processCpu, RollingCounter, toSignal, type Signal } from '../../lib/signals.js';

/**
 * Decides on every call, from live signals, whether to stop calling the real
 * thing and answer from `to` instead. The decision is a decision tree
 * ({@link decisionTree}) over request rate, CPU and downstream health, or any
 * predicate; thresholds may change while running without losing the rate
 * window.
 *
 * @typeParam T - the `to` handler's answer type.
 */
export class DegradePolicy<T> extends PolicyBase<T> {
  /** The clock of the rate window. */
  declare readonly clock: Clock;
  private readonly when: DecisionTree | DegradePredicate;
  private readonly to: DegradeHandler<T>;
  private readonly rate: RollingCounter;
  private readonly signals: [string, Signal][];
  private readonly qps: Signal | undefined;
  private readonly cpu: Signal;
  private readonly health: Signal;

  constructor(options: DegradeOptions<T>) {
    const o = checkOptions(degradeOptions, options, 'degrade');
    super(o.name, o.clock ?? systemClock);
    this.when = o.when;
    this.to = o.to as DegradeHandler<T>;
    this.rate = new RollingCounter(o.rateWindowMs, 10);
    const { qps, cpu, health, ...rest } = o.signals;
    this.qps = qps === undefined ? undefined : toSignal(qps);
    this.cpu = cpu === undefined ? processCpu({ clock: this.clock }) : toSignal(cpu);
    this.health = health === undefined ? toSignal(1) : toSignal(health, 1);
    this.signals = Object.entries(rest).map(([k, v]) => [k, toSignal(v)]);
  }

  /** The decision in force: a {@link DecisionTree} (whose thresholds can change) or a predicate. */
  get decision(): DecisionTree | DegradePredicate {
    return this.when;
  }

  /** Every signal's current value, as the next decision would see it. */
  readSignals(now = this.clock.now()): Record<string, number> {
    const values: Record<string, number> = {
      qps: this.qps !== undefined ? this.qps.value() : this.rate.totals(now).count / (this.rate.windowMs / 1_000),
      cpu: this.cpu.value(),
      health: this.health.value(),
    };
    for (const [k, s] of this.signals) values[k] = s.value();
    return values;
  }

  async [RUN]<R>(op: Operation<R>, ctx: ExecutionContext, next: Chain | undefined): Promise<R | T> {
    const now = this.clock.now();
    this.rate.add(now);
    const signals = this.readSignals(now);
    let action: string | undefined;
    if (this.when instanceof DecisionTree) {
      const d = this.when.decide({ qps: signals.qps!, cpu: signals.cpu!, healthyRatio: signals.health! });
      if (d.degrade) action = d.action;
    } else if (this.when(signals)) action = 'custom';
    let answer: R | T;
    try {
      if (action === undefined) {
        answer = await runNext(op, ctx, next);
        if (this.events.observed) this.outcome('success', now);
        return answer;
      }
      const info: DegradeInfo = { action, signals };
      if (this.events.observed) this.events.emit({ type: 'degraded', policy: this.name, action, signals });
      answer = await this.to(info, ctx);
    } catch (error) {
      if (this.events.observed) this.outcome(thrownOutcome(error, ctx), now, error);
      throw error;
    }
    if (this.events.observed) this.outcome('fallback', now);
    return answer;
  }

  /** Stops following Observable signals. */
  dispose(): void {
    for (const s of [this.qps, this.cpu, this.health, ...this.signals.map(([, v]) => v)]) s?.dispose();
  }
}

/**
 * Makes a {@link DegradePolicy}.
 *
 * @example
 * ```ts
 * const p = policy().use(degrade({ when: decisionTree({ qpsHigh: 800, qpsMid: 300 }), to: () => CACHED_PAGE }));
 * ```
 */
export function degrade<F>(options: DegradeOptions<F>): DegradePolicy<F> {
  return new DegradePolicy<F>(options);
}
