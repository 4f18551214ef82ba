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
import { breakerRegistryOptions, isPlainObject, type AdaptiveDefaults, type BreakerRegistryOptions, type BreakerRegistryReload, type SreDefaults } from './options.js';
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
 * holds a record is kept (but a closed count-window state machine, whose
 * window never empties with time: idle eviction is its only forgetting).
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
  /** The clock of idle tracking. */
  readonly clock: Clock;
  private idle: number;
  private readonly map = new Map<string, Entry<B>>();
  private readonly events = new EventSource();
  /** The family of the breakers made, and their parsed options. */
  private made: Made;
  private oldest: Entry<B> | undefined = undefined;
  private newest: Entry<B> | undefined = undefined;
  private controlMode: BreakerControl = 'enforcing';

  constructor(options: BreakerRegistryOptions = {}) {
    // an object rule accepts a Map or a Date as an empty options object
    if (!isPlainObject(options)) throw new ConfigError('breakerRegistry', [{ path: '', message: 'expected an options object' }]);
    const o = checkOptions(breakerRegistryOptions, options, 'breakerRegistry');
    this.name = o.name;
    this.idle = o.idleMs;
    this.clock = o.clock ?? systemClock;
    this.made = parseFamily((o.defaults ?? {}) as Record<string, unknown>, { clock: o.clock, random: o.random }, 'breakerRegistry');
  }

  /** Milliseconds after which an unused breaker is dropped. */
  get idleMs(): number {
    return this.idle;
  }

  /**
   * Hot reload: new `defaults` and `idleMs` (omitted ones take their defaults, as at construction). The defaults
   * apply to the breakers made from now on and, in place, to every breaker the registry holds (each breaker's own
   * `reconfigure`, keeping its state, window, streaks and control); the breakers keep their clock and random source.
   * A new `idleMs` applies from the next use of the registry (`get`, `prune`), with the same care as ever: a breaker
   * whose drop would change a decision is kept. Refused with a `ConfigError`, changing nothing: defaults of another
   * family of breaker (the default breaker, `family: 'sre'`, or a state machine with `trip`), at path `defaults`;
   * another window (`windowMs`, `buckets`, a state machine's `trip` or `window`), at its path under `defaults`,
   * whether or not a breaker is held now; a bad option.
   *
   * @example
   * ```ts
   * tenants.reconfigure({ defaults: { trip: 'consecutiveFailures', threshold: 10 }, idleMs: 600_000 });
   * ```
   */
  reconfigure(options: BreakerRegistryReload): void {
    const o = checkOptions(breakerRegistryOptions, { ...options, name: this.name }, this.name);
    const current = this.made;
    const { clock: _c, random: _r, ...defaults } = (o.defaults ?? {}) as Record<string, unknown>;
    const next = parseFamily({ ...defaults, clock: current.o.clock, ...(current.o.random !== undefined ? { random: current.o.random } : {}) }, {}, this.name);
    if (next.family !== current.family) {
      throw new ConfigError(this.name, [{ path: 'defaults', message: `cannot change in place (the breakers are ${FAMILY[current.family]}, these defaults make ${FAMILY[next.family]}); build a new registry` }]);
    }
    const { family: _f, ...each } = defaults;
    // Every breaker held was made from the current defaults and none can change its window: a scratch breaker made
    // from them refuses whatever any of them would, before anything changes.
    try {
      makeBreaker(current, `${this.name}:`).reconfigure(each as never);
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      throw new ConfigError(this.name, e.issues.map((i) => ({ path: `defaults.${i.path}`, message: i.message.replace(/build a new breaker$/, 'build a new registry') })));
    }
    this.idle = o.idleMs;
    this.made = next;
    for (const e of this.map.values()) (e.breaker as AnyBreaker).reconfigure(each as never);
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
    const b = makeBreaker(this.made, `${this.name}:${key}`) as B;
    shareEventSource(b, this.events);
    if (this.controlMode !== 'enforcing') b.setControl(this.controlMode);
    return b;
  }

  private evict(now: number): void {
    let e = this.oldest;
    while (e !== undefined && now - e.lastUsedAt > this.idle) {
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

/** The family of breaker a registry makes, with the options parsed by that family's rules. */
type Made =
  | { readonly family: 'adaptive'; readonly o: ReturnType<typeof adaptiveBreakerOptions> }
  | { readonly family: 'sre'; readonly o: ReturnType<typeof sreBreakerOptions> }
  | { readonly family: 'machine'; readonly o: ReturnType<typeof circuitBreakerOptions> };

/** The families as a refusal names them. */
const FAMILY: Readonly<Record<Made['family'], string>> = { adaptive: 'default (adaptive) breakers', sre: 'SRE breakers', machine: 'state machines' };

/**
 * The family `defaults` asks for (a state machine with `trip` or `strategy`, else the default breaker or
 * `family: 'sre'`) and its options, checked by that family's rules with paths under `defaults`; `base` gives the
 * clock and random source the defaults do not.
 */
function parseFamily(defaults: Record<string, unknown>, base: { clock?: Clock | undefined; random?: (() => number) | undefined }, policy: string): Made {
  if ('trip' in defaults || 'strategy' in defaults) return { family: 'machine', o: parseDefaults(circuitBreakerOptions, { clock: base.clock, ...defaults }, policy) };
  const { family, ...rest } = defaults;
  if (family === 'sre') return { family: 'sre', o: parseDefaults(sreBreakerOptions, { clock: base.clock, random: base.random, ...rest }, policy) };
  if (family === undefined || family === 'adaptive') return { family: 'adaptive', o: parseDefaults(adaptiveBreakerOptions, { clock: base.clock, random: base.random, ...rest }, policy) };
  throw new ConfigError(policy, [{ path: 'defaults.family', message: "expected 'adaptive' or 'sre'" }]);
}

/** A breaker of the family `made`, named `name`. */
function makeBreaker(made: Made, name: string): AnyBreaker {
  switch (made.family) {
    case 'adaptive':
      return new AdaptiveBreakerPolicy(made.o, name);
    case 'sre':
      return new SreBreakerPolicy(made.o, name);
    case 'machine':
      return new CircuitBreakerPolicy(made.o, name);
  }
}

function parseDefaults<T>(rule: Rule<T>, input: unknown, policy: string): T {
  const found = new Findings();
  const out = rule(input, ['defaults'], found);
  if (found.list.length > 0) throw new ConfigError(policy, found.issues());
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
