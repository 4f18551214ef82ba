/**
 * The dynamic threshold's risk score, written once: `wRps × min(1, rps /
 * baseRps) + wError × errorRate + wProbe × (1 − probeSuccessRate)`. Positional,
 * so the breaker computes it after each completion without building an object;
 * `baseRps` must be > 0 (the callers check it).
 */
export function riskScore(wRps: number, wError: number, wProbe: number, rps: number, baseRps: number, errorRate: number, probeSuccessRate: number): number {
  const load = Math.min(1, Math.max(0, rps) / baseRps);
  return wRps * load + wError * errorRate + wProbe * (1 - probeSuccessRate);
}
