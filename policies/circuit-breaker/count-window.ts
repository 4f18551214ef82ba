/**
 * The outcomes of the last `size` calls (resilience4j's COUNT_BASED sliding
 * window, cockatiel's `CountBreaker`): a ring of one byte per call (bit 0 a
 * failure, bit 1 a slow call) and running sums, so a record costs O(1) and the
 * window a fixed `size` bytes, made on its first record. A new record past
 * `size` pushes the oldest out of the sums.
 *
 * @example
 * ```ts
 * const w = new CountWindow(100);
 * w.add(true, false);
 * w.total; // 1, w.failures 1
 * ```
 */
export class CountWindow {
  /** Calls in the window (at most `size`). */
  total = 0;
  /** Of those, failures. */
  failures = 0;
  /** Of those, slow calls. */
  slow = 0;
  private ring: Uint8Array | undefined = undefined;
  /** The slot the next record goes to; once the ring is full, the oldest record's. */
  private next = 0;

  /** @param size how many of the last calls the window holds (>= 1) */
  constructor(readonly size: number) {}

  /** Records one call; past `size` calls, the oldest leaves the window. */
  add(failed: boolean, slow: boolean): void {
    const ring = (this.ring ??= new Uint8Array(this.size));
    const i = this.next;
    if (this.total === this.size) {
      const old = ring[i]!;
      this.failures -= old & 1;
      this.slow -= old >> 1;
    } else this.total++;
    const v = (failed ? 1 : 0) | (slow ? 2 : 0);
    ring[i] = v;
    this.failures += v & 1;
    this.slow += v >> 1;
    this.next = i + 1 === this.size ? 0 : i + 1;
  }

  /** Empties the window (the ring is kept for reuse). */
  clear(): void {
    this.total = this.failures = this.slow = this.next = 0;
  }

  /** The outcomes held, oldest first: bit 0 a failure, bit 1 a slow call. */
  outcomes(): number[] {
    const out: number[] = [];
    const ring = this.ring;
    if (ring === undefined) return out;
    const start = (this.next - this.total + this.size) % this.size;
    for (let k = 0; k < this.total; k++) out.push(ring[(start + k) % this.size]!);
    return out;
  }
}

/**
 * A circuit breaker's count window as plain JSON: its size and the outcomes it holds,
 * oldest first (bit 0 a failure, bit 1 a slow call), at most `size` of them.
 */
export interface CountWindowSnapshot {
  /** How many of the last calls the window holds. */
  size: number;
  /** The outcomes held, oldest first: 0 a success, 1 a failure, 2 a slow success, 3 a slow failure. */
  outcomes: number[];
}

/**
 * The window as plain JSON (a copy).
 * @example
 * ```ts
 * JSON.stringify(snapshotCountWindow(w));
 * ```
 */
export function snapshotCountWindow(w: CountWindow): CountWindowSnapshot {
  return { size: w.size, outcomes: w.outcomes() };
}

/**
 * A window rebuilt from a validated {@link CountWindowSnapshot}: the same outcomes in the same order.
 * @example
 * ```ts
 * const w = restoreCountWindow(snapshotCountWindow(old));
 * ```
 */
export function restoreCountWindow(s: CountWindowSnapshot): CountWindow {
  const w = new CountWindow(s.size);
  for (const v of s.outcomes) w.add((v & 1) === 1, (v & 2) === 2);
  return w;
}
