import { Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { ConfigError, decisionTree, degrade } from '../../../api/index.js';
import { DEGRADE_THRESHOLDS } from '../../../lib/sla.js';

describe('decisionTree: defaults, validation and the Observable form', () => {
  it('defaults to the seed thresholds, each one separately', () => {
    expect(decisionTree().thresholds).toEqual({ qpsHigh: 5_000, qpsMid: 2_000, cpuHigh: 0.85, cpuCritical: 0.92, healthyMin: 0.9 });
    expect(decisionTree({ qpsMid: 100 }).thresholds).toEqual({ qpsHigh: 5_000, qpsMid: 100, cpuHigh: 0.85, cpuCritical: 0.92, healthyMin: 0.9 });
    expect(decisionTree().decide({ qps: 5_001, cpu: 0.86, healthyRatio: 1 })).toEqual({ degrade: true, action: 'shedNonCore' });
    expect(() => decisionTree().dispose()).not.toThrow();
  });

  it('qpsHigh may equal qpsMid; rates may be 0, not negative; messages name the rule', () => {
    expect(decisionTree({ qpsHigh: 1_000, qpsMid: 1_000 }).thresholds.qpsHigh).toBe(1_000);
    expect(decisionTree({ qpsHigh: 0, qpsMid: 0 }).thresholds.qpsMid).toBe(0);
    expect(() => decisionTree({ qpsHigh: 10, qpsMid: 20 })).toThrow(/qpsHigh must be >= qpsMid/);
    expect(() => decisionTree({ qpsMid: -1 })).toThrow(/expected a finite number >= 0/);
    expect(() => decisionTree({ qpsMid: -1 })).toThrow(ConfigError);
    expect(() => decisionTree({ cpuHigh: 1 })).not.toThrow();
    expect(() => decisionTree({ cpuHigh: 1.01 })).toThrow(/cpuHigh/);
  });

  it('an Observable tree uses the seed thresholds until it first emits', () => {
    const updates = new Subject<{ qpsHigh?: number; qpsMid?: number }>();
    const tree = decisionTree(updates);
    expect(tree.thresholds).toEqual(DEGRADE_THRESHOLDS);
    updates.next({ qpsMid: 10 });
    expect(tree.thresholds.qpsMid).toBe(10);
    expect(tree.decide({ qps: 11, cpu: 0.93, healthyRatio: 1 })).toEqual({ degrade: true, action: 'limitAndSample' });
    tree.dispose();
    expect(updates.observed).toBe(false);
  });
});
