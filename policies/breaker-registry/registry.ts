import type { Observable } from 'rxjs';
import { shareEventSource } from '../../lib/base.js';
import { systemClock, type Clock } from '../../lib/clock.js';
import { ConfigError } from '../../lib/errors.js';
import { EventSource, type PolicyEvent } from '../../lib/events.js';
import { checkOptions, Findings, type Rule } from '../../lib/options.js';
import { AdaptiveBreakerPolicy } from '../adaptive-breaker/adaptive-breaker.js';
import { adaptiveBreakerOptions } from '../adaptive-breaker/options.js';
import { CircuitBreakerPolicy } from '../circuit-breaker/circuit-breaker.js';
import { circuitBreakerOptions, type CircuitBreakerOptions } from '../circuit-breaker/options.js';
import { sreBreakerOptions } from '../sre-breaker/options.js';
import { SreBreakerPolicy } from '../sre-breaker/sre-breaker.js';
import { breakerRegistryOptions, isPlainObject, type AdaptiveDefaults, type BreakerRegistryOptions, type SreDefaults } from './options.js';
import { BREAKER_CONTROLS, type BreakerControl, type BreakerHealth } from '../breaker/breaker.js';

/** Any breaker a registry can hold. */
export type AnyBreaker = AdaptiveBreakerPolicy | SreBreakerPolicy | CircuitBreakerPolicy;

/**
 * One breaker per key (multi-level breakers: per service,
 * method, host, tenant), made on first use from shared, validated options.
 * Breakers unused for `idleMs` are dropped lazily when the registry is used
 * (least recently used first, no timer), so hundreds of thousands of keys
 * stay cheap: a breaker that saw one call is a few hundred bytes. Idle
 * eviction never changes a decision: an isolated breaker, an open one before
 * its open period ends, one waiting for a probe, or one whose window still
 * holds a record is kept.
 * All its breakers emit on the registry's `events$` (names `name:key`).
 *
 * @example
 * ```ts
 * const perMethod = breakerRegistry({ defaults: { trip: 'errorRatio' } });
 * await perMethod.get('GET /users').execute(getUsers);
 * ```
 */
export class BreakerRegistry<B extends AnyBreaker = AnyBreaker> {
  /** Prefix of the breakers' names. */
  readonly name: string;
  /** Milliseconds after which an unused breaker is dropped. */
  readonly idleMs: number;
  /** The clock of idle tracking. */
  readonly clock: Clock;
  private readonly map = new Map<string, Entry<B>>();
  private readonly events = new EventSource();
  private readonly adaptive: ReturnType<typeof parseAdaptive> | undefined;
  private readonly sre: ReturnType<typeof parseSre> | undefined;
  private readonly machine: ReturnType<typeof parseMachine> | undefined;
  private oldest: Entry<B> | undefined = undefined;
  private newest: Entry<B> | undefined = undefined;
  private controlMode: BreakerControl = 'enforcing';

  constructor(options: BreakerRegistryOptions = {}) {
    // an object rule accepts a Map or a Date as an empty options object
    if (!isPlainObject(options)) throw new ConfigError('breakerRegistry', [{ path: '', message: 'expected an options object' }]);
    const o = checkOptions(breakerRegistryOptions, options, 'breakerRegistry');
    this.name = o.name;
    this.idleMs = o.idleMs;
    this.clock = o.clock ?? systemClock;
    const defaults = o.defaults ?? {};
    if ('trip' in defaults || 'strategy' in defaults) this.machine = parseMachine({ clock: o.clock, ...defaults });
    else {
      const { family, ...rest } = defaults;
      if (family === 'sre') this.sre = parseSre({ clock: o.clock, random: o.random, ...rest });
      else if (family === undefined || family === 'adaptive') this.adaptive = parseAdaptive({ clock: o.clock, random: o.random, ...rest });
      else throw new ConfigError('breakerRegistry', [{ path: 'defaults.family', message: "expected 'adaptive' or 'sre'" }]);
    }
  }

  /** Events of every breaker of the registry. */
  get events$(): Observable<PolicyEvent> {
    return this.events.events$;
  }

  /** How many breakers the registry holds. */
  get size(): number {
    return this.map.size;
  }

  /** The breaker for `key`, made if there is none; marks it used and drops breakers idle for longer than `idleMs`. */
  get(key: string): B {
    const now = this.clock.now();
    let e = this.map.get(key);
    if (e === undefined) {
      e = new Entry(key, this.make(key));
      this.map.set(key, e);
      this.link(e);
    } else if (e !== this.newest) {
      this.unlink(e);
      this.link(e);
    }
    e.lastUsedAt = now;
    this.evict(now);
    return e.breaker;
  }

  /** The breaker for `key` if there is one, without making or touching it. */
  peek(key: string): B | undefined {
    return this.map.get(key)?.breaker;
  }

  /** Drops the breaker for `key`; true if there was one. */
  delete(key: string): boolean {
    const e = this.map.get(key);
    if (e === undefined) return false;
    this.unlink(e);
    return this.map.delete(key);
  }

  /** The keys held, least recently used first. */
  *keys(): IterableIterator<string> {
    for (let e = this.oldest; e !== undefined; e = e.newer) yield e.key;
  }

  /** The control every breaker of the registry is under (see {@link BreakerControl}). */
  get control(): BreakerControl {
    return this.controlMode;
  }

  /**
   * Puts every breaker of the registry, and each one made later, under `control` (see {@link BreakerControl});
   * an unknown value is a `ConfigError` and changes nothing.
   */
  setControl(control: BreakerControl): void {
    if (!BREAKER_CONTROLS.includes(control)) {
      throw new ConfigError(this.name, [{ path: 'control', message: `expected one of ${BREAKER_CONTROLS.map((c) => `'${c}'`).join(', ')}, got ${String(control)}` }]);
    }
    this.controlMode = control;
    for (const e of this.map.values()) e.breaker.setControl(control);
  }

  /** The health of every breaker held, by key, least recently used first. */
  health(): { readonly name: string; readonly control: BreakerControl; readonly breakers: Readonly<Record<string, BreakerHealth>> } {
    const breakers: Record<string, BreakerHealth> = {};
    for (let e = this.oldest; e !== undefined; e = e.newer) breakers[e.key] = e.breaker.health();
    return { name: this.name, control: this.controlMode, breakers };
  }

  /** Drops every breaker idle for longer than `idleMs` now (but those idle eviction keeps); returns how many. */
  prune(): number {
    const before = this.map.size;
    this.evict(this.clock.now());
    return before - this.map.size;
  }

  private make(key: string): B {
    const name = `${this.name}:${key}`;
    const b = (
      this.adaptive !== undefined ? new AdaptiveBreakerPolicy(this.adaptive, name) : this.sre !== undefined ? new SreBreakerPolicy(this.sre, name) : new CircuitBreakerPolicy(this.machine!, name)
    ) as B;
    shareEventSource(b, this.events);
    if (this.controlMode !== 'enforcing') b.setControl(this.controlMode);
    return b;
  }

  private evict(now: number): void {
    let e = this.oldest;
    while (e !== undefined && now - e.lastUsedAt > this.idleMs) {
      this.unlink(e);
      if ((e.breaker as AnyBreaker).evictable(now)) this.map.delete(e.key);
      else {
        // Kept: it goes to the newest end as if used now, so it is looked at again only after another idleMs.
        e.lastUsedAt = now;
        this.link(e);
      }
      e = this.oldest;
    }
  }

  private link(e: Entry<B>): void {
    e.older = this.newest;
    e.newer = undefined;
    if (this.newest !== undefined) this.newest.newer = e;
    else this.oldest = e;
    this.newest = e;
  }

  private unlink(e: Entry<B>): void {
    if (e.older !== undefined) e.older.newer = e.newer;
    else this.oldest = e.newer;
    if (e.newer !== undefined) e.newer.older = e.older;
    else this.newest = e.older;
    e.older = e.newer = undefined;
  }
}

/** A registry's record of one key: its breaker, when it was last used, and its links in the least-recently-used list. */
class Entry<B> {
  lastUsedAt = 0;
  older: Entry<B> | undefined = undefined;
  newer: Entry<B> | undefined = undefined;

  constructor(
    readonly key: string,
    readonly breaker: B,
  ) {}
}

function parseAdaptive(input: unknown) {
  return parseDefaults(adaptiveBreakerOptions, input);
}

function parseSre(input: unknown) {
  return parseDefaults(sreBreakerOptions, input);
}

function parseMachine(input: unknown) {
  return parseDefaults(circuitBreakerOptions, input);
}

function parseDefaults<T>(rule: Rule<T>, input: unknown): T {
  const found = new Findings();
  const out = rule(input, ['defaults'], found);
  if (found.list.length > 0) throw new ConfigError('breakerRegistry', found.issues());
  return out;
}

/**
 * Makes a {@link BreakerRegistry}: default breakers (`adaptiveBreaker`) unless
 * `defaults` has a `trip` (or `strategy`, its deprecated name: state machines) or says `family: 'sre'`
 * (go-zero's SRE breakers).
 *
 * @example
 * ```ts
 * const tenants = breakerRegistry({ defaults: { trip: 'consecutiveFailures', threshold: 5 }, idleMs: 600_000 });
 * const b = tenants.get(tenantId);
 * ```
 */
export function breakerRegistry(options: BreakerRegistryOptions & { defaults: CircuitBreakerOptions }): BreakerRegistry<CircuitBreakerPolicy>;
export function breakerRegistry(options: BreakerRegistryOptions & { defaults: SreDefaults }): BreakerRegistry<SreBreakerPolicy>;
export function breakerRegistry(options?: BreakerRegistryOptions & { defaults?: AdaptiveDefaults }): BreakerRegistry<AdaptiveBreakerPolicy>;
export function breakerRegistry(options?: BreakerRegistryOptions): BreakerRegistry;
export function breakerRegistry(options: BreakerRegistryOptions = {}): BreakerRegistry {
  return new BreakerRegistry(options);
}
