import { isObservable, type Observable, type Subscription } from 'rxjs';
import { z } from 'zod';
import { parseOptions, ratio } from '../../lib/schemas.js';
import { DEGRADE_THRESHOLDS, degradeDecision, type DegradeDecision, type DegradeSignals, type DegradeThresholds } from '../../lib/sla.js';

const unit = ratio;
const rate = z.number({ message: 'expected a finite number >= 0' }).nonnegative({ message: 'expected a finite number >= 0' });

/** The zod schema of the decision tree's thresholds. */
export const DecisionTreeOptionsSchema = z
  .object({
    /** @defaultValue 5000 */ qpsHigh: rate.default(DEGRADE_THRESHOLDS.qpsHigh),
    /** @defaultValue 2000 */ qpsMid: rate.default(DEGRADE_THRESHOLDS.qpsMid),
    /** @defaultValue 0.85 */ cpuHigh: unit.default(DEGRADE_THRESHOLDS.cpuHigh),
    /** @defaultValue 0.92 */ cpuCritical: unit.default(DEGRADE_THRESHOLDS.cpuCritical),
    /** @defaultValue 0.9 */ healthyMin: unit.default(DEGRADE_THRESHOLDS.healthyMin),
  })
  .strict()
  .refine((t) => t.qpsHigh >= t.qpsMid, { message: 'qpsHigh must be >= qpsMid', path: ['qpsHigh'] });

/** Thresholds of {@link decisionTree}; every one optional. */
export type DecisionTreeOptions = z.input<typeof DecisionTreeOptionsSchema>;

/**
 * The seed 002 §3.3 decision tree as a live object: `decide(signals)` answers
 * with the branch's action; `setThresholds` (or an Observable given at
 * construction, like the seed's ConfigMap hot update) changes the
 * thresholds for the very next decision.
 */
export class DecisionTree {
  private current: DegradeThresholds;
  private readonly sub: Subscription | undefined;

  constructor(thresholds: DecisionTreeOptions | Observable<DecisionTreeOptions> = {}) {
    if (isObservable(thresholds)) {
      this.current = DEGRADE_THRESHOLDS;
      this.sub = (thresholds as Observable<DecisionTreeOptions>).subscribe((t) => this.setThresholds(t));
    } else {
      this.current = parseOptions(DecisionTreeOptionsSchema, thresholds, 'decisionTree');
    }
  }

  /** The thresholds in force. */
  get thresholds(): DegradeThresholds {
    return this.current;
  }

  /** Replaces the thresholds; invalid ones throw a `ConfigError` and change nothing. */
  setThresholds(thresholds: DecisionTreeOptions): void {
    this.current = parseOptions(DecisionTreeOptionsSchema, thresholds, 'decisionTree');
  }

  /** Decides for the given signals. */
  decide(signals: DegradeSignals): DegradeDecision {
    return degradeDecision(signals, this.current);
  }

  /** Stops following a thresholds Observable. */
  dispose(): void {
    this.sub?.unsubscribe();
  }
}

/**
 * Makes the seed 002 §3.3 degradation decision tree: under high QPS degrade
 * when CPU is over `cpuHigh` or downstream health under `healthyMin`; under
 * medium QPS only when CPU is over `cpuCritical`; never under low QPS.
 *
 * @example
 * ```ts
 * degrade({ when: decisionTree({ qpsHigh: 800, qpsMid: 300 }), to: () => CACHED });
 * ```
 */
export function decisionTree(thresholds: DecisionTreeOptions | Observable<DecisionTreeOptions> = {}): DecisionTree {
  return new DecisionTree(thresholds);
}
