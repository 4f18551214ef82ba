import { isObservable, type Observable, type Subscription } from 'rxjs';
import { checkOptions, defineRule, numberAtLeast, object, ratio, withDefault } from '../../lib/options.js';
import { DEGRADE_THRESHOLDS, degradeDecision, type DegradeDecision, type DegradeSignals, type DegradeThresholds } from '../../lib/sla.js';

/**
 * Thresholds of {@link decisionTree}; every one optional.
 * @example
 * ```ts
 * decisionTree({ qpsHigh: 8_000, cpuHigh: 0.8 });
 * ```
 */
export interface DecisionTreeOptions {
  /**
   * Requests per second above which the service counts as under high load.
   * @defaultValue 5000
   */
  qpsHigh?: number | undefined;
  /**
   * Requests per second above which the service counts as under medium load (at most `qpsHigh`).
   * @defaultValue 2000
   */
  qpsMid?: number | undefined;
  /**
   * CPU utilisation (0–1) counted as high.
   * @defaultValue 0.85
   */
  cpuHigh?: number | undefined;
  /**
   * CPU utilisation (0–1) counted as critical.
   * @defaultValue 0.92
   */
  cpuCritical?: number | undefined;
  /**
   * Health (0–1) below which a dependency counts as unhealthy.
   * @defaultValue 0.9
   */
  healthyMin?: number | undefined;
}

const rate = /* @__PURE__ */ numberAtLeast(0);

/** The rules of {@link DecisionTreeOptions} (`DecisionTreeOptionsSchema` in `breakwater/config` says the same). */
export const decisionTreeOptions = /* @__PURE__ */ defineRule(() => object(
  {
    qpsHigh: withDefault(rate, DEGRADE_THRESHOLDS.qpsHigh),
    qpsMid: withDefault(rate, DEGRADE_THRESHOLDS.qpsMid),
    cpuHigh: withDefault(ratio, DEGRADE_THRESHOLDS.cpuHigh),
    cpuCritical: withDefault(ratio, DEGRADE_THRESHOLDS.cpuCritical),
    healthyMin: withDefault(ratio, DEGRADE_THRESHOLDS.healthyMin),
  },
  (t, add) => {
    if (!(t.qpsHigh >= t.qpsMid)) add('qpsHigh must be >= qpsMid', ['qpsHigh']);
  },
));


/**
 * The degradation decision tree as a live object: `decide(signals)` answers
 * with the branch's action; `setThresholds` (or an Observable given at
 * construction, e.g. fed by a watched config file) changes the
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
      this.current = checkOptions(decisionTreeOptions, thresholds, 'decisionTree');
    }
  }

  /** The thresholds in force. */
  get thresholds(): DegradeThresholds {
    return this.current;
  }

  /** Replaces the thresholds; invalid ones throw a `ConfigError` and change nothing. */
  setThresholds(thresholds: DecisionTreeOptions): void {
    this.current = checkOptions(decisionTreeOptions, thresholds, 'decisionTree');
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
 * Makes the degradation decision tree: under high QPS degrade
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
