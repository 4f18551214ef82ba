/**
 * A bucketed rolling window of three counters per bucket, shared by the
 * breakers (and anything else that counts events over the last N ms).
 *
 * - O(1) per record: running sums over the visible buckets are kept up to
 *   date; a bucket is subtracted from them when it expires.
 * - Lazy: no typed array exists until records land in a second bucket while
 *   the first is still visible. Until then the head bucket's counts *are*
 *   the running sums, so a window that saw one call (or only calls further
 *   apart than the window) costs a handful of fields.
 * - Reading never changes what the window holds (go-zero's `Reduce` does not
 *   move the window either): `read(now)` and `count(...)` subtract the
 *   buckets that have expired by `now` from the sums they report, and leave
 *   the expiry itself to the next record.
 *
 * Bucket `i` covers clock times `[origin + i·bucketMs, origin + (i+1)·bucketMs)`
 * and is visible while `current − i < size`. `origin` fixes the alignment:
 * `goZeroOrigin` (construction time) or `leapArrayOrigin`
 * (multiples of the bucket length, Sentinel).
 *
 * @example
 * ```ts
 * const w = new RollingWindow(40, 250, goZeroOrigin(clock.now()));
 * w.add(clock.now(), 1, 0, 0);
 * w.read(clock.now()); // w.v0 === 1
 * ```
 */
export class RollingWindow {
  /** Absolute index of the newest bucket recorded into; -1 before any record (indices are >= 0; a small integer keeps the field unboxed). */
  head = -1;
  /** Running sums of the three counters over buckets `(head − size, head]`. */
  s0 = 0;
  s1 = 0;
  s2 = 0;
  /** Results of the last {@link read}: the sums visible at its `now`. */
  v0 = 0;
  v1 = 0;
  v2 = 0;
  /** Per-bucket counts, `[c0, c1, c2]` at `(i % size) * 3`; made on first need. */
  counts: Uint32Array | undefined = undefined;
  /** Where the head bucket's counts start in `counts`: `(head % size) * 3`. */
  slot = 0;
  /** The last clock time {@link indexAt} computed, and its bucket before clamping (clock times repeat within a millisecond). */
  private at = NaN;
  private atIndex = 0;

  /**
   * @param size number of buckets in the window (>= 1)
   * @param bucketMs length of a bucket in clock ms (> 0)
   * @param origin clock time at which bucket 0 starts
   */
  constructor(
    readonly size: number,
    readonly bucketMs: number,
    readonly origin: number,
  ) {}

  /** The absolute bucket index `now` falls in, never before the head (a clock that steps back records into the head). */
  indexAt(now: number): number {
    let i = this.atIndex;
    if (now !== this.at) {
      i = Math.floor((now - this.origin) / this.bucketMs);
      if (i < 0) i = 0;
      this.at = now;
      this.atIndex = i;
    }
    return i > this.head ? i : this.head;
  }

  /** Adds `d0`, `d1`, `d2` to the bucket `now` falls in. */
  add(now: number, d0: number, d1: number, d2: number): void {
    const i = this.indexAt(now);
    if (i !== this.head) this.roll(i);
    const c = this.counts;
    if (c !== undefined) {
      const j = this.slot;
      c[j] = c[j]! + d0;
      c[j + 1] = c[j + 1]! + d1;
      c[j + 2] = c[j + 2]! + d2;
    }
    this.s0 += d0;
    this.s1 += d1;
    this.s2 += d2;
  }

  /** Sets `v0`, `v1`, `v2` to the sums visible at `now`; the window itself is unchanged. */
  read(now: number): void {
    const gap = this.indexAt(now) - this.head;
    if (gap === 0 || (gap < this.size && this.counts === undefined)) {
      this.v0 = this.s0;
      this.v1 = this.s1;
      this.v2 = this.s2;
      return;
    }
    if (gap >= this.size) {
      this.v0 = this.v1 = this.v2 = 0;
      return;
    }
    // Buckets head−size+1 … head−size+gap have expired; they share slots with head+1 … head+gap.
    const c = this.counts!;
    let v0 = this.s0;
    let v1 = this.s1;
    let v2 = this.s2;
    for (let k = 1; k <= gap; k++) {
      const j = ((this.head + k) % this.size) * 3;
      v0 -= c[j]!;
      v1 -= c[j + 1]!;
      v2 -= c[j + 2]!;
    }
    this.v0 = v0;
    this.v1 = v1;
    this.v2 = v2;
  }

  /**
   * Counter `field` of absolute bucket `i` as seen from absolute bucket
   * `current` (from {@link indexAt}): 0 when `i` is empty, expired or ahead.
   */
  count(i: number, current: number, field: 0 | 1 | 2): number {
    if (i < 0 || i > this.head || i <= this.head - this.size || i <= current - this.size) return 0;
    const c = this.counts;
    if (c === undefined) {
      if (i !== this.head) return 0;
      return field === 0 ? this.s0 : field === 1 ? this.s1 : this.s2;
    }
    return c[(i % this.size) * 3 + field]!;
  }

  /** Empties every bucket. */
  clear(): void {
    this.head = -1;
    this.s0 = this.s1 = this.s2 = 0;
    this.counts?.fill(0);
  }

  /** Moves the head to bucket `i` (> head), expiring the buckets that fall out. */
  private roll(i: number): void {
    const gap = i - this.head;
    if (gap >= this.size) {
      this.s0 = this.s1 = this.s2 = 0;
      this.counts?.fill(0);
    } else if (this.counts === undefined) {
      if (this.s0 !== 0 || this.s1 !== 0 || this.s2 !== 0) {
        // A second visible bucket: only now does the window need its arrays.
        const c = (this.counts = new Uint32Array(this.size * 3));
        const j = (this.head % this.size) * 3;
        c[j] = this.s0;
        c[j + 1] = this.s1;
        c[j + 2] = this.s2;
      }
    } else {
      const c = this.counts;
      for (let k = 1; k <= gap; k++) {
        const j = ((this.head + k) % this.size) * 3;
        this.s0 -= c[j]!;
        this.s1 -= c[j + 1]!;
        this.s2 -= c[j + 2]!;
        c[j] = c[j + 1] = c[j + 2] = 0;
      }
    }
    this.head = i;
    this.slot = (i % this.size) * 3;
  }
}

/**
 * go-zero's alignment: the bucket grid starts at construction time `t0`.
 * @example
 * ```ts
 * new RollingWindow(40, 250, goZeroOrigin(clock.now()));
 * ```
 */
export function goZeroOrigin(t0: number): number {
  return t0;
}

/**
 * Sentinel's leap-array alignment: buckets start at multiples of `bucketMs`
 * on the clock. The origin returned is the multiple at or before `t0`, which
 * keeps bucket indices small without moving the grid.
 * @example
 * ```ts
 * new RollingWindow(10, 1_000, leapArrayOrigin(clock.now(), 1_000));
 * ```
 */
export function leapArrayOrigin(t0: number, bucketMs: number): number {
  return t0 - (((t0 % bucketMs) + bucketMs) % bucketMs);
}

/**
 * A {@link RollingWindow} as plain JSON: its grid (`origin`, `bucketMs`,
 * `size`), the newest bucket recorded into (`head`, -1 before any record),
 * the running sums over the visible buckets, and the per-bucket counts
 * (`[c0, c1, c2]` per slot, or `null` while the window has needed no array).
 */
export interface WindowSnapshot {
  origin: number;
  bucketMs: number;
  size: number;
  head: number;
  sums: [number, number, number];
  counts: number[] | null;
}

/**
 * The window as plain JSON (copies; later records do not change it).
 * @example
 * ```ts
 * JSON.stringify(snapshotWindow(breaker.window));
 * ```
 */
export function snapshotWindow(w: RollingWindow): WindowSnapshot {
  return { origin: w.origin, bucketMs: w.bucketMs, size: w.size, head: w.head, sums: [w.s0, w.s1, w.s2], counts: w.counts === undefined ? null : Array.from(w.counts) };
}

/**
 * A window rebuilt from a {@link WindowSnapshot} (already validated: see
 * `windowSnapshotSchema`); the snapshot is copied, never kept or changed.
 * @example
 * ```ts
 * const w = restoreWindow(snapshotWindow(old));
 * ```
 */
export function restoreWindow(s: WindowSnapshot): RollingWindow {
  const w = new RollingWindow(s.size, s.bucketMs, s.origin);
  w.head = s.head;
  if (s.head >= 0) w.slot = (s.head % s.size) * 3;
  w.s0 = s.sums[0];
  w.s1 = s.sums[1];
  w.s2 = s.sums[2];
  if (s.counts !== null) w.counts = Uint32Array.from(s.counts);
  return w;
}
