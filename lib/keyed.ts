/**
 * One value per key, made on first use, bounded two ways: a value unused for
 * longer than `idleMs` is dropped lazily when the map is next used (least
 * recently used first, no timer), and the map never holds more than
 * `maxKeys`. A value is dropped only when `evictable(value, now)` says that
 * dropping it changes nothing its key's next call would meet (a full token
 * bucket, an idle bulkhead); an idle one that is not is looked at again after
 * another `idleMs`. A new key that finds the map full takes the place of the
 * least recently used value if that one is evictable now, idle or not;
 * otherwise there is no room ({@link KeyedMap.get} answers `undefined`) and
 * the caller refuses the call: a bound is never bought by forgetting a key
 * that still holds something.
 *
 * @example
 * ```ts
 * const buckets = new KeyedMap((key) => new TokenBucket({ rate: 10 }), (b, now) => b.idle(now), { maxKeys: 10_000, idleMs: 60_000 });
 * const b = buckets.get(tenant, clock.now());
 * ```
 */
export class KeyedMap<V> {
  private readonly map = new Map<string, Slot<V>>();
  private oldest: Slot<V> | undefined = undefined;
  private newest: Slot<V> | undefined = undefined;

  /**
   * @param make makes the value of a new key
   * @param evictable true when dropping `value` at `now` changes nothing its key's next call meets
   * @param bounds `maxKeys` (>= 1) and `idleMs` (> 0)
   */
  constructor(
    private readonly make: (key: string) => V,
    private readonly evictable: (value: V, now: number) => boolean,
    private readonly bounds: { readonly maxKeys: number; readonly idleMs: number },
  ) {}

  /** How many keys it holds. */
  get size(): number {
    return this.map.size;
  }

  /**
   * The value of `key`, made if there is none and there is room; marks it
   * used at `now` and drops values idle for longer than `idleMs`. `undefined`
   * when the key is new and the map is full of values it may not drop.
   */
  get(key: string, now: number): V | undefined {
    let s = this.map.get(key);
    if (s === undefined) {
      this.evict(now);
      if (this.map.size >= this.bounds.maxKeys) {
        const lru = this.oldest!;
        if (!this.evictable(lru.value, now)) return undefined;
        this.drop(lru);
      }
      s = new Slot(key, this.make(key));
      this.map.set(key, s);
      this.link(s);
      s.lastUsedAt = now;
    } else {
      if (s !== this.newest) {
        this.unlink(s);
        this.link(s);
      }
      s.lastUsedAt = now; // before evicting: the key being used is never idle
      this.evict(now);
    }
    return s.value;
  }

  /** The value of `key` if there is one, without making or touching it. */
  peek(key: string): V | undefined {
    return this.map.get(key)?.value;
  }

  /** The keys held, least recently used first. */
  *keys(): IterableIterator<string> {
    for (let s = this.oldest; s !== undefined; s = s.newer) yield s.key;
  }

  /** Drops every value idle for longer than `idleMs` at `now` (but those it may not drop); returns how many. */
  prune(now: number): number {
    const before = this.map.size;
    this.evict(now);
    return before - this.map.size;
  }

  private evict(now: number): void {
    const idleMs = this.bounds.idleMs;
    let s = this.oldest;
    // A kept value comes back used at `now`, so the loop ends once every idle one has been looked at.
    while (s !== undefined && now - s.lastUsedAt > idleMs) {
      if (this.evictable(s.value, now)) this.drop(s);
      else {
        // Kept: to the newest end as if used now, looked at again only after another idleMs.
        this.unlink(s);
        s.lastUsedAt = now;
        this.link(s);
      }
      s = this.oldest;
    }
  }

  private drop(s: Slot<V>): void {
    this.unlink(s);
    this.map.delete(s.key);
  }

  private link(s: Slot<V>): void {
    s.older = this.newest;
    s.newer = undefined;
    if (this.newest !== undefined) this.newest.newer = s;
    else this.oldest = s;
    this.newest = s;
  }

  private unlink(s: Slot<V>): void {
    if (s.older !== undefined) s.older.newer = s.newer;
    else this.oldest = s.newer;
    if (s.newer !== undefined) s.newer.older = s.older;
    else this.newest = s.older;
    s.older = s.newer = undefined;
  }
}

/** One key's value, when it was last used, and its links in the least-recently-used list. */
class Slot<V> {
  lastUsedAt = 0;
  older: Slot<V> | undefined = undefined;
  newer: Slot<V> | undefined = undefined;

  constructor(
    readonly key: string,
    readonly value: V,
  ) {}
}
