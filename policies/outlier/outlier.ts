import { PolicyBase } from '../../lib/base.js';
import { systemClock } from '../../lib/clock.js';
import { Context, runNext, toContext } from '../../lib/context.js';
import { judge } from '../../lib/judge.js';
import { checkOptions } from '../../lib/options.js';
import { settledOutcome } from '../../lib/outcome.js';
import { RUN, type Chain, type ExecutionContext, type Operation } from '../../lib/policy.js';
import { hostsRule, outlierDetectionOptions, type OutlierDetectionOptions } from './options.js';
import './events.js';

/** What {@link OutlierDetectionPolicy.status} tells of one host. */
export interface HostStatus {
  readonly host: string;
  /** True while the host is out of the pool. */
  readonly ejected: boolean;
  /** Clock time the current ejection ends; `undefined` when not ejected. */
  readonly returnsAt: number | undefined;
  /** Times ejected, after the decay of its time back in the pool. */
  readonly ejections: number;
  /** Failures in a row since its last success. */
  readonly consecutiveFailures: number;
}

/** One host's record. */
class Host {
  failures = 0;
  ejections = 0;
  ejected = false;
  until = 0;
  /** When it last entered the pool (made, or back from an ejection): the start of the decay of `ejections`. */
  since: number;
  constructor(
    readonly name: string,
    now: number,
  ) {
    this.since = now;
  }
}

/**
 * Outlier detection for a client calling a pool of hosts (Envoy's, with its
 * defaults): a host whose calls fail `consecutiveFailures` times in a row is
 * ejected for `baseEjectionMs` × the times it has been ejected (at most
 * `maxEjectionMs`; each whole `intervalMs` back in the pool takes one off that
 * count). Never more than `maxEjectionPercent` of the pool is out at once,
 * but one host may be when that share rounds down to 0 (`0` turns ejection off).
 *
 * The policy routes: a call whose `ctx.meta[hostKey]` names a host goes there
 * (the caller chose; its outcome counts for that host); any other call gets
 * {@link OutlierDetectionPolicy.pick}'s host in `ctx.meta[hostKey]`, which the
 * operation reads to build its request. `pick()` goes round the hosts in the
 * pool; when every host is out (a pool of one), it gives the one that returns
 * first rather than none. What counts against a host: a thrown error (`handle`
 * decides which; a shed rejection and the caller's own cancellation never
 * count) or a result `handleResult` judges a failure; a success resets its run.
 *
 * @example
 * ```ts
 * const hosts = outlierDetection({ hosts: ['10.0.0.1:8080', '10.0.0.2:8080'] });
 * await hosts.execute((ctx) => fetch(`http://${ctx.meta.host}/users/42`, { signal: ctx.signal }));
 * ```
 */
export class OutlierDetectionPolicy extends PolicyBase {
  private readonly consecutive: number;
  private readonly baseMs: number;
  private readonly maxMs: number;
  private readonly intervalMs: number;
  private readonly percent: number;
  /** The `ctx.meta` key naming a call's host. */
  readonly hostKey: string;
  private readonly handle: ((error: unknown) => boolean) | undefined;
  private readonly handleResult: ((result: unknown) => boolean) | undefined;
  private pool: Host[] = [];
  private readonly byName = new Map<string, Host>();
  private cursor = 0;
  private out = 0;
  /** The earliest end of a current ejection (Infinity: none): nothing to sweep before it. */
  private nextReturn = Infinity;

  constructor(options: OutlierDetectionOptions) {
    const o = checkOptions(outlierDetectionOptions, options, 'outlierDetection');
    super(o.name, o.clock ?? systemClock);
    this.consecutive = o.consecutiveFailures;
    this.baseMs = o.baseEjectionMs;
    this.maxMs = Math.max(o.baseEjectionMs, o.maxEjectionMs);
    this.intervalMs = o.intervalMs;
    this.percent = o.maxEjectionPercent;
    this.hostKey = o.hostKey;
    this.handle = o.handle;
    this.handleResult = o.handleResult;
    this.adopt(o.hosts);
  }

  /** The hosts of the pool, in order. */
  get hosts(): readonly string[] {
    return this.pool.map((h) => h.name);
  }

  /** The most hosts out at once: `maxEjectionPercent` of the pool, rounded down, but 1 when that is 0 (and the percentage is not). */
  get maxEjected(): number {
    if (this.percent === 0) return 0;
    return Math.max(1, Math.floor((this.pool.length * this.percent) / 100));
  }

  /**
   * Replaces the pool. Hosts that stay keep their record (an ejected host stays out); new hosts start clean;
   * removed hosts are forgotten. A bad list is a `ConfigError` and changes nothing.
   */
  setHosts(hosts: readonly string[]): void {
    const checked = checkOptions(hostsRule, hosts, 'outlierDetection.setHosts');
    this.adopt(checked);
  }

  /** The host a call should go to now: the next host in the pool that is not ejected (the one returning first when all are). */
  pick(): string {
    const now = this.clock.now();
    this.sweep(now);
    const n = this.pool.length;
    for (let i = 0; i < n; i++) {
      const h = this.pool[(this.cursor + i) % n]!;
      if (!h.ejected) {
        this.cursor = (this.cursor + i + 1) % n;
        return h.name;
      }
    }
    let first = this.pool[0]!;
    for (const h of this.pool) if (h.until < first.until) first = h;
    return first.name;
  }

  /** Each host's state now, in pool order. */
  status(): HostStatus[] {
    this.sweep(this.clock.now());
    return this.pool.map((h) => ({
      host: h.name,
      ejected: h.ejected,
      returnsAt: h.ejected ? h.until : undefined,
      ejections: h.ejections,
      consecutiveFailures: h.failures,
    }));
  }

  [RUN]<R>(op: Operation<R>, ctx: ExecutionContext, next: Chain | undefined): Promise<R> {
    const c = toContext(ctx);
    const start = this.clock.now();
    const given = c.meta[this.hostKey];
    const name = given ?? this.pick();
    const inner = given !== undefined ? c : new Context(c.clock, c.scope, c.deadline, c.attempt, c.key, { ...c.meta, [this.hostKey]: name });
    let p: Promise<R>;
    try {
      p = runNext(op, inner, next);
    } catch (error) {
      p = Promise.reject(error);
    }
    p.then(
      (value) => this.settled(name, false, value, c, start),
      (error: unknown) => this.settled(name, true, error, c, start),
    );
    return p;
  }

  /** Records a settled call against `name` and reports its outcome. */
  private settled(name: string, thrown: boolean, valueOrError: unknown, c: ExecutionContext, start: number): void {
    const result = settledOutcome(thrown, valueOrError, c, this.handleResult);
    const now = this.clock.now();
    const counts = result === 'failure' || result === 'timeout' ? !thrown || this.handle === undefined || judge(this.handle, valueOrError) : false;
    const host = this.byName.get(name);
    if (host !== undefined && (counts || result === 'success')) this.record(host, counts, now);
    if (this.events.observed) this.outcome(result, start, thrown ? valueOrError : undefined, now);
  }

  private record(host: Host, failed: boolean, now: number): void {
    this.sweep(now);
    if (host.ejected) return; // calls that started before the ejection say nothing new
    if (!failed) {
      host.failures = 0;
      return;
    }
    if (++host.failures < this.consecutive) return;
    if (this.out >= this.maxEjected) {
      if (this.events.observed) this.events.emit({ type: 'ejectionSkipped', policy: this.name, host: host.name, ejected: this.out });
      return;
    }
    const decay = Math.floor((now - host.since) / this.intervalMs);
    host.ejections = Math.max(0, host.ejections - decay) + 1;
    const ms = Math.min(this.baseMs * host.ejections, this.maxMs);
    host.ejected = true;
    host.until = now + ms;
    host.failures = 0;
    this.out++;
    if (host.until < this.nextReturn) this.nextReturn = host.until;
    if (this.events.observed) this.events.emit({ type: 'hostEjected', policy: this.name, host: host.name, ejections: host.ejections, ejectionMs: ms });
  }

  /** Brings back every host whose ejection is over. */
  private sweep(now: number): void {
    if (now < this.nextReturn) return;
    let next = Infinity;
    for (const h of this.pool) {
      if (!h.ejected) continue;
      if (now >= h.until) {
        h.ejected = false;
        h.since = h.until;
        this.out--;
        if (this.events.observed) this.events.emit({ type: 'hostReturned', policy: this.name, host: h.name });
      } else if (h.until < next) next = h.until;
    }
    this.nextReturn = next;
  }

  private adopt(hosts: readonly string[]): void {
    const now = this.clock.now();
    const pool: Host[] = [];
    for (const name of hosts) pool.push(this.byName.get(name) ?? new Host(name, now));
    this.byName.clear();
    for (const h of pool) this.byName.set(h.name, h);
    this.pool = pool;
    this.cursor = this.cursor % pool.length;
    this.out = 0;
    this.nextReturn = Infinity;
    for (const h of pool) {
      if (!h.ejected) continue;
      this.out++;
      if (h.until < this.nextReturn) this.nextReturn = h.until;
    }
  }
}

/**
 * Makes an {@link OutlierDetectionPolicy}: per-host ejection for a client calling a pool of hosts.
 *
 * @example
 * ```ts
 * const pool = outlierDetection({ hosts: ['a.internal', 'b.internal', 'c.internal'], consecutiveFailures: 5 });
 * const http = resilientFetch(policy().retry({ maxAttempts: 2 }).use(pool));
 * await http((ctx) => `http://${ctx.meta.host}/users/42`);
 * ```
 */
export function outlierDetection(options: OutlierDetectionOptions): OutlierDetectionPolicy {
  return new OutlierDetectionPolicy(options);
}
