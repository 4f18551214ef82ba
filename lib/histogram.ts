/**
 * A streaming latency histogram over a rolling window: log-spaced buckets
 * (each 10 % wider than the last, so any quantile is within 10 % of the
 * truth), kept per time slice so old samples fall out without a sort or an
 * array of samples. Recording is O(1); a quantile walks the buckets once.
 *
 * @example
 * ```ts
 * const h = new RollingHistogram({ windowMs: 300_000 });
 * h.record(42, clock.now());
 * h.quantile(0.99, clock.now()); // ≈ 42, within 10 %
 * ```
 */
export class RollingHistogram {
  private static readonly MIN = 0.1; // ms, lower edge of bucket 1
  private static readonly RATIO = 1.1;
  private static readonly BUCKETS = 180; // 0.1 ms · 1.1^178 ≈ 2.3e6 ms: everything up to ~40 minutes
  private readonly sliceMs: number;
  private readonly counts: Uint32Array;
  private readonly totals: Float64Array;
  private readonly epochs: Float64Array;

  /**
   * @param options.windowMs how far back samples count
   * @param options.slices how many slices the window rolls in @defaultValue 6
   */
  constructor(options: { windowMs: number; slices?: number }) {
    const slices = options.slices ?? 6;
    this.sliceMs = options.windowMs / slices;
    this.counts = new Uint32Array(slices * RollingHistogram.BUCKETS);
    this.totals = new Float64Array(slices);
    this.epochs = new Float64Array(slices).fill(-Infinity);
  }

  /** Adds one sample of `ms` at clock time `now`. */
  record(ms: number, now: number): void {
    const slice = this.slice(now);
    const b = RollingHistogram.bucketOf(ms);
    this.counts[slice * RollingHistogram.BUCKETS + b]!++;
    this.totals[slice]!++;
  }

  /** Samples in the window at `now`. */
  count(now: number): number {
    const oldest = Math.floor(now / this.sliceMs) - this.totals.length + 1;
    let n = 0;
    for (let s = 0; s < this.totals.length; s++) if (this.epochs[s]! >= oldest) n += this.totals[s]!;
    return n;
  }

  /** The `q` quantile (0–1) of the window's samples, as its bucket's upper edge; 0 when empty. */
  quantile(q: number, now: number): number {
    const slices = this.totals.length;
    const oldest = Math.floor(now / this.sliceMs) - slices + 1;
    const total = this.count(now);
    if (total === 0) return 0;
    const target = Math.max(1, Math.ceil(q * total));
    let seen = 0;
    for (let b = 0; b < RollingHistogram.BUCKETS; b++) {
      for (let s = 0; s < slices; s++) {
        if (this.epochs[s]! >= oldest) seen += this.counts[s * RollingHistogram.BUCKETS + b]!;
      }
      if (seen >= target) return RollingHistogram.upperEdge(b);
    }
    return RollingHistogram.upperEdge(RollingHistogram.BUCKETS - 1);
  }

  private slice(now: number): number {
    const epoch = Math.floor(now / this.sliceMs);
    const slices = this.totals.length;
    const i = ((epoch % slices) + slices) % slices;
    if (this.epochs[i] !== epoch) {
      this.epochs[i] = epoch;
      this.totals[i] = 0;
      this.counts.fill(0, i * RollingHistogram.BUCKETS, (i + 1) * RollingHistogram.BUCKETS);
    }
    return i;
  }

  private static bucketOf(ms: number): number {
    if (!(ms > RollingHistogram.MIN)) return 0;
    const b = Math.floor(Math.log(ms / RollingHistogram.MIN) / Math.log(RollingHistogram.RATIO)) + 1;
    return Math.min(b, RollingHistogram.BUCKETS - 1);
  }

  private static upperEdge(bucket: number): number {
    return RollingHistogram.MIN * RollingHistogram.RATIO ** bucket;
  }
}
