import { randomUUID } from 'node:crypto';
import { Subject, type Observable, type Subscription } from 'rxjs';
import type { Clock, TimerHandle } from '../../lib/clock.js';
import { ConfigError, type ConfigIssue } from '../../lib/errors.js';
import { boundedStoreCall } from '../../lib/store-call.js';
import type { BreakerPolicy, IsolationHandle } from '../../policies/breaker/breaker.js';
import type { BreakerState } from '../../policies/breaker/events.js';
import { fleetOptions, needed, type RedisFleetOptions, type ResolvedFleetOptions } from './fleet-options.js';
import { exchangeScript, leaveScript, readSummaries, writeSummary, type Summary } from './fleet-script.js';
import { isRedisClient, type RedisClient } from './script.js';

export { RedisFleetOptionsSchema, type RedisFleetOptions } from './fleet-options.js';

/** One instance's last summary, as this instance holds it. */
export interface FleetMember {
  /** The instance's `instanceId`. */
  readonly id: string;
  /** True when its own breaker saw the dependency sick (open or half-open) since its previous summary. */
  readonly sick: boolean;
  /** True when the fleet's verdict held it open as it wrote the summary. */
  readonly fleetOpen: boolean;
  /** Its breaker's state as it wrote the summary. */
  readonly state: BreakerState;
  /** Milliseconds since it wrote the summary (Redis's clock at the read, this instance's clock since). */
  readonly ageMs: number;
}

/** What an instance knows of its fleet: returned by {@link RedisFleet.sync} and {@link RedisFleet.view}. */
export interface FleetView {
  /** Live instances (summaries at most `staleMs` old), this one included once it has published. */
  readonly live: number;
  /** Live instances whose breaker saw the dependency sick. */
  readonly sick: number;
  /** Sick instances needed to open the fleet, given `live`. */
  readonly needed: number;
  /** True while the fleet's verdict holds this instance's breaker open. */
  readonly open: boolean;
  /** True when the last exchange with Redis succeeded. */
  readonly connected: boolean;
  /** The live instances' summaries. */
  readonly members: readonly FleetMember[];
}

/** Something a {@link RedisFleet} did or met; every event carries the fleet's `key` and this `instance`. */
export type FleetEvent =
  /** A quorum of the fleet sees the dependency sick: this instance's breaker is now held open. */
  | { readonly type: 'fleetOpen'; readonly key: string; readonly instance: string; readonly live: number; readonly sick: number; readonly needed: number }
  /** The quorum no longer holds (or went stale) and `openMs` passed: the breaker is released, closed with empty counters. */
  | { readonly type: 'fleetClose'; readonly key: string; readonly instance: string; readonly live: number; readonly sick: number; readonly needed: number }
  /** An exchange failed or timed out after one that succeeded (or the first one did): this instance ages its view of the fleet. */
  | { readonly type: 'exchangeFailed'; readonly key: string; readonly instance: string; readonly error: unknown }
  /** An exchange succeeded again after failures. */
  | { readonly type: 'exchangeRestored'; readonly key: string; readonly instance: string };

/** A summary as this instance holds it: `writtenAt` is its clock time at which the summary was written (its age at the read, subtracted). */
interface Held extends Summary {
  writtenAt: number;
}

/** True for what the fleet needs of a breaker (checked by shape: two copies of breakwater may meet here). */
function isBreaker(value: unknown): boolean {
  const b = value as BreakerPolicy;
  return typeof value === 'object' && value !== null && typeof b.isolate === 'function' && typeof b.state === 'string' && typeof b.state$?.subscribe === 'function';
}

/**
 * One breaker's place in a fleet sharing its verdict through Redis. The
 * breaker decides every call locally, as always; every `summaryMs`, off the
 * call path, one Lua script writes this instance's summary (did its breaker
 * see the dependency sick since the last one) and reads every live
 * instance's. When at least the quorum of live instances see it sick, every
 * instance holds its breaker open (`isolate()`) for at least `openMs`, and
 * releases it once the quorum is gone. One sick instance alone trips only its
 * own breaker. A failed or slow exchange (past `commandTimeoutMs`) delays no
 * call: the instance keeps its last view, whose summaries go stale after
 * `staleMs`, so it falls back to its own breaker and rejoins when Redis
 * answers again. Why and the bounds: docs/breakers.md, "Fleet-shared state".
 */
export class RedisFleet {
  /** The instance's name in the fleet. */
  readonly instanceId: string;
  /** The Redis key of the fleet's hash (prefix + key). */
  readonly redisKey: string;
  private readonly o: ResolvedFleetOptions;
  private readonly clock: Clock;
  private readonly subject = new Subject<FleetEvent>();
  private readonly subscription: Subscription;
  private readonly held = new Map<string, Held>();
  private timer: TimerHandle | undefined;
  private chain: Promise<unknown> = Promise.resolve();
  private inFlight = false;
  private seq = 0;
  /** Sets this handle's summaries apart from those of an earlier handle with the same `instanceId`. */
  private readonly nonce = randomUUID().slice(0, 8);
  /** The breaker was open or half-open, by its own rules, since the last summary written. */
  private sickSince = false;
  /** Counts the breaker's own turns to open or half-open: one during an exchange is kept for the next summary. */
  private sickTurns = 0;
  private isolation: IsolationHandle | undefined;
  /** True while this fleet changes the breaker's state itself: those transitions are not the breaker's evidence. */
  private acting = false;
  private openedAt = 0;
  private connected = false;
  private failing = false;
  private disposed = false;

  /** Every event of this instance's fleet handle. */
  readonly events$: Observable<FleetEvent> = this.subject.asObservable();

  constructor(
    private readonly redis: RedisClient,
    private readonly breaker: BreakerPolicy,
    options: RedisFleetOptions,
  ) {
    const problems: ConfigIssue[] = [];
    if (!isRedisClient(redis)) problems.push({ path: 'redis', message: 'expected an ioredis client (evalsha, eval)' });
    if (!isBreaker(breaker)) problems.push({ path: 'breaker', message: 'expected a breakwater breaker (isolate, state, state$)' });
    if (problems.length > 0) throw new ConfigError('redisFleet', problems);
    this.o = fleetOptions(options);
    this.instanceId = this.o.instanceId ?? randomUUID();
    this.redisKey = this.o.prefix + this.o.key;
    this.clock = this.o.clock ?? breaker.clock;
    this.subscription = breaker.state$.subscribe((state) => this.observe(state));
    this.tick();
  }

  /** Runs one exchange now (after any under way) and resolves with the view it left; never rejects. */
  sync(): Promise<FleetView> {
    const run = this.chain.then(() => this.exchange());
    this.chain = run.catch(() => undefined);
    return run;
  }

  /** What this instance knows of the fleet now, from its last exchange, aged by its clock. */
  view(): FleetView {
    const now = this.clock.now();
    const members: FleetMember[] = [];
    for (const [id, h] of this.held) {
      const ageMs = now - h.writtenAt;
      if (ageMs <= this.o.staleMs) members.push({ id, sick: h.sick, fleetOpen: h.fleetOpen, state: h.state, ageMs });
    }
    const sick = members.filter((m) => m.sick).length;
    return { live: members.length, sick, needed: needed(this.o.quorum, members.length), open: this.isolation !== undefined, connected: this.connected, members };
  }

  /**
   * Leaves the fleet: stops the exchanges, releases the breaker if the fleet
   * holds it open, and removes this instance's summary from Redis (best
   * effort, within `commandTimeoutMs`; the promise never rejects).
   */
  dispose(): Promise<void> {
    if (this.disposed) return Promise.resolve();
    this.disposed = true;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.subscription.unsubscribe();
    this.release();
    this.subject.complete();
    return boundedStoreCall(this.clock, this.o.commandTimeoutMs, 'redisFleet', 'leave', () => leaveScript.run(this.redis, [this.redisKey], [this.instanceId])).then(
      () => undefined,
      () => undefined,
    );
  }

  private tick = (): void => {
    if (this.disposed) return;
    this.timer = this.clock.setTimeout(this.tick, this.o.summaryMs);
    (this.timer as { unref?: () => unknown } | undefined)?.unref?.();
    // What the held view says now, even when Redis is too slow to answer this round.
    this.decide(this.view());
    if (this.inFlight) return;
    void this.sync();
  };

  private observe(state: BreakerState): void {
    if (this.acting) return;
    if (this.isolation !== undefined) {
      // Closed while the fleet held it open: someone called reset(), which made the isolation inert.
      if (state === 'closed') this.isolation = undefined;
      return;
    }
    if (state === 'closed') return;
    this.sickSince = true;
    this.sickTurns++;
  }

  private async exchange(): Promise<FleetView> {
    if (this.disposed) return this.view();
    this.inFlight = true;
    const open = this.isolation !== undefined;
    const turns = this.sickTurns;
    // Held open by the fleet, the breaker's state is not its own: no evidence either way.
    const sick = !open && (this.sickSince || this.breaker.state !== 'closed');
    const summary = writeSummary({ seq: `${this.nonce}.${++this.seq}`, sick, fleetOpen: open, state: open ? 'open' : this.breaker.state });
    try {
      const reply = await boundedStoreCall(this.clock, this.o.commandTimeoutMs, 'redisFleet', 'exchange', () =>
        exchangeScript.run(this.redis, [this.redisKey], [this.instanceId, summary, Math.ceil(this.o.staleMs), Math.ceil(this.o.staleMs)]),
      );
      if (!open && turns === this.sickTurns) this.sickSince = false;
      this.merge(reply);
      this.connected = true;
      if (this.failing) {
        this.failing = false;
        this.emit({ type: 'exchangeRestored', key: this.o.key, instance: this.instanceId });
      }
    } catch (error) {
      this.connected = false;
      if (!this.failing) {
        this.failing = true;
        this.emit({ type: 'exchangeFailed', key: this.o.key, instance: this.instanceId, error });
      }
    } finally {
      this.inFlight = false;
    }
    if (!this.disposed) this.decide(this.view());
    return this.view();
  }

  /** Takes the summaries of a successful read; an instance missing from it has left (or Redis lost the hash). */
  private merge(reply: unknown): void {
    const now = this.clock.now();
    const read = readSummaries(reply);
    for (const [id, r] of read) {
      const prior = this.held.get(id);
      // The same summary read again keeps its first estimate: from then on this instance's clock ages it.
      const writtenAt = prior !== undefined && prior.seq === r.seq ? prior.writtenAt : now - r.ageMs;
      this.held.set(id, { seq: r.seq, sick: r.sick, fleetOpen: r.fleetOpen, state: r.state, writtenAt });
    }
    for (const id of this.held.keys()) if (!read.has(id)) this.held.delete(id);
  }

  private decide(view: FleetView): void {
    const holds = view.sick >= view.needed;
    const now = this.clock.now();
    if (holds && this.isolation === undefined) {
      this.acting = true;
      try {
        this.isolation = this.breaker.isolate();
      } finally {
        this.acting = false;
      }
      this.openedAt = now;
      this.sickSince = false;
      this.emit({ type: 'fleetOpen', key: this.o.key, instance: this.instanceId, live: view.live, sick: view.sick, needed: view.needed });
    } else if (!holds && this.isolation !== undefined && now - this.openedAt >= this.o.openMs) {
      this.release();
      this.emit({ type: 'fleetClose', key: this.o.key, instance: this.instanceId, live: view.live, sick: view.sick, needed: view.needed });
    }
  }

  private release(): void {
    const handle = this.isolation;
    if (handle === undefined) return;
    this.isolation = undefined;
    this.acting = true;
    try {
      handle.dispose();
    } finally {
      this.acting = false;
    }
  }

  private emit(event: FleetEvent): void {
    if (this.subject.observed) this.subject.next(event);
  }
}

/**
 * Shares `breaker`'s verdict with every instance using the same `key`, on an
 * ioredis client you own (breakwater never connects or quits it). The
 * breaker keeps deciding each call alone; the fleet opens it too when a
 * quorum of instances see the dependency sick. Dispose the handle to leave.
 *
 * @example
 * ```ts
 * import Redis from 'ioredis';
 * import { breaker } from 'breakwater';
 * import { redisFleet } from 'breakwater/redis';
 * const payments = breaker();
 * const fleet = redisFleet(new Redis(), payments, { key: 'payments-api', quorum: { share: 0.5, atLeast: 2 } });
 * ```
 */
export function redisFleet(redis: RedisClient, breaker: BreakerPolicy, options: RedisFleetOptions): RedisFleet {
  return new RedisFleet(redis, breaker, options);
}
