/**
 * What the limiting policies (bulkhead, rate limiter, adaptive limiter, load
 * shedder) share to shed lower criticality first: a reserve, a share of the
 * capacity each criticality may not use, and partitions, a share of the
 * capacity each named class of calls is guaranteed.
 */
import { criticalityOf, isCriticality, CRITICALITY_META, type Criticality } from './criticality.js';
import { above, atLeast, atMost, below, cannotReshape, defineRule, name, number, object, record, refined, type Rule, whenValid, withDefault } from './options.js';

/**
 * Shares of a policy's capacity kept from the lower criticalities (Google SRE's
 * "Handling Overload": as load rises, sheddable traffic is refused first, then
 * default, and critical last). A call of criticality `c` is admitted only while
 * the capacity in use stays under `capacity × (1 − reserve[c])`; `critical`
 * calls may use all of it.
 *
 * @example
 * ```ts
 * bulkhead({ limit: 20, reserve: { sheddable: 0.25, default: 0.05 } }); // sheddable calls hold at most 15 slots
 * ```
 */
export interface CriticalityReserve {
  /**
   * Share of the capacity `default` calls may not use: kept for `critical` ones. A number in [0, 1), at most
   * `sheddable`.
   * @defaultValue 0
   */
  default?: number | undefined;
  /**
   * Share of the capacity `sheddable` calls may not use: kept for `critical` and `default` ones. A number in [0, 1),
   * at least `default`.
   * @defaultValue 0.1
   */
  sheddable?: number | undefined;
}

/** A {@link CriticalityReserve} with its defaults applied. */
export interface Reserve {
  readonly default: number;
  readonly sheddable: number;
}

const RESERVE = 'expected a number in [0, 1)';
const reserveShare = /* @__PURE__ */ defineRule(() => number(RESERVE, atLeast(0, RESERVE), below(1, RESERVE)));

/** The message when a reserve would shed default calls before sheddable ones. */
export const RESERVE_ORDER = 'must be >= default: sheddable calls are shed first';

/** The rules of {@link CriticalityReserve} (`reserveSchema` in lib/schemas.ts says the same). */
export const reserveRule = /* @__PURE__ */ defineRule(() => object(
  {
    default: withDefault(reserveShare, 0),
    sheddable: withDefault(reserveShare, 0.1),
  },
  whenValid((o, add) => {
    if (o.sheddable < o.default) add(RESERVE_ORDER, ['sheddable']);
  }),
));

/** The share of the capacity a call of criticality `c` may not use. */
export function reserveFor(reserve: Reserve, c: Criticality): number {
  return c === 'critical' ? 0 : c === 'default' ? reserve.default : reserve.sheddable;
}

/**
 * True when a call that may not use `share` of `capacity` fits while `used`
 * is in use. `used < capacity × (1 − share)`, so a reserve never locks a class
 * out of a small capacity that is idle (a bulkhead of 1 still runs a
 * sheddable call when nothing else runs).
 */
export function fits(used: number, capacity: number, share: number): boolean {
  return used < capacity * (1 - share);
}

const SHARE = 'expected a number in (0, 1]';

/** The message when partition shares add up to more than the whole. */
export const SHARES_SUM = 'the shares must add up to at most 1';

/** The rules of a partitions option: a share in (0, 1] per name, adding up to at most 1 (`partitionsSchema` says the same). */
export const partitionsRule: Rule<Record<string, number>> = /* @__PURE__ */ defineRule(() => refined(record(number(SHARE, above(0, SHARE), atMost(1, SHARE))), (shares, add) => {
  // A little float noise: 0.7 + 0.2 + 0.1 is 1.0000000000000002.
  if (sumOf(shares) > 1 + 1e-9) add(SHARES_SUM);
}));

/** The rule of a partitionBy option. */
export const partitionByRule = /* @__PURE__ */ withDefault(name, CRITICALITY_META);

function sumOf(shares: Record<string, number>): number {
  let sum = 0;
  for (const v of Object.values(shares)) sum += v;
  return sum;
}

/** A call not in any partition. */
export const NO_PARTITION = -1;

/**
 * Hot reload of a limit's partitions: takes the new shares when `shares` and
 * `by` keep the shape of `parts` (see {@link Partitions.sameShape}; none
 * before and none now is the same shape), else throws a `ConfigError` naming
 * `partitions` (they shape the bookkeeping: a change needs a new `what`) and
 * changes nothing.
 */
export function reshare(policy: string, parts: Partitions | undefined, shares: Readonly<Record<string, number>> | undefined, by: string, what: string): void {
  if (parts === undefined ? shares !== undefined : shares === undefined || !parts.sameShape(shares, by)) cannotReshape(policy, ['partitions'], 'bookkeeping', what);
  parts?.reshare(shares!);
}

/**
 * The partitions of a concurrency limit (Netflix concurrency-limits'
 * partitioned limiter): each named class of calls is guaranteed
 * `ceil(limit × share)` of the limit, and may borrow what others leave
 * unused. Counts each partition's calls in flight.
 */
export class Partitions {
  /** The partitions' names, in the order given. */
  readonly names: readonly string[];
  private readonly shares: Float64Array;
  private readonly counts: Int32Array;
  private readonly index = new Map<string, number>();

  constructor(
    shares: Readonly<Record<string, number>>,
    /** The `ctx.meta` key naming a call's partition; `'criticality'` reads it as {@link criticalityOf} does. */
    private readonly by: string,
  ) {
    this.names = Object.keys(shares);
    this.shares = Float64Array.from(this.names, (n) => shares[n]!);
    this.counts = new Int32Array(this.names.length);
    this.names.forEach((n, i) => this.index.set(n, i));
  }

  /** True when `shares` names the same partitions, in the same order, read from the same `ctx.meta` key. */
  sameShape(shares: Readonly<Record<string, number>>, by: string): boolean {
    const names = Object.keys(shares);
    return by === this.by && names.length === this.names.length && names.every((n, i) => n === this.names[i]);
  }

  /** New shares for the same partitions (see {@link Partitions.sameShape}); the counts in flight stay. */
  reshare(shares: Readonly<Record<string, number>>): void {
    this.names.forEach((n, i) => (this.shares[i] = shares[n]!));
  }

  /** The partition of a call with labels `meta`, or {@link NO_PARTITION}. */
  of(meta: Readonly<Record<string, string>>): number {
    const key = this.by === CRITICALITY_META ? criticalityOf({ meta }) : meta[this.by];
    return key === undefined ? NO_PARTITION : (this.index.get(key) ?? NO_PARTITION);
  }

  /** The slots partition `p` is guaranteed out of `limit` (at least 1); none for {@link NO_PARTITION}. */
  guaranteed(p: number, limit: number): number {
    // 0.9 × 10 is 9.000000000000002: the noise must not round up to 10.
    return p === NO_PARTITION ? 0 : Math.max(1, Math.ceil(limit * this.shares[p]! - 1e-9));
  }

  /** True while partition `p` has fewer calls in flight than it is guaranteed out of `limit`. */
  under(p: number, limit: number): boolean {
    return p !== NO_PARTITION && this.counts[p]! < this.guaranteed(p, limit);
  }

  /** Calls of partition `p` in flight. */
  inFlight(p: number): number {
    return p === NO_PARTITION ? 0 : this.counts[p]!;
  }

  /** A call of partition `p` started. */
  enter(p: number): void {
    if (p !== NO_PARTITION) this.counts[p]!++;
  }

  /** A call of partition `p` ended. */
  leave(p: number): void {
    if (p !== NO_PARTITION) this.counts[p]!--;
  }

  /** The name of partition `p`, for events. */
  nameOf(p: number): string | undefined {
    return p === NO_PARTITION ? undefined : this.names[p];
  }
}

/** The optional fields a refusal event adds: the criticality the call carried, and its partition when there are partitions. */
export function refusedFields(meta: Readonly<Record<string, string>>, partition?: string): { criticality?: Criticality; partition?: string } {
  const c = meta[CRITICALITY_META];
  const out: { criticality?: Criticality; partition?: string } = {};
  if (isCriticality(c)) out.criticality = c;
  if (partition !== undefined) out.partition = partition;
  return out;
}
