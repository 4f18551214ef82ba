import { isObservable, type Observable } from 'rxjs';
import type { PolicyEvent } from '../../lib/events.js';

/**
 * What the integrations read of a policy or pipeline: its name, its events
 * and, when it is a pipeline, its policies (each may be a breaker with a
 * `state$`). Any breakwater `Policy` or `Pipeline` fits.
 */
export interface Observed {
  readonly name: string;
  readonly events$: Observable<PolicyEvent>;
  /** A pipeline's policies. */
  readonly policies?: readonly unknown[];
  /** A breaker's state: replays the current one, then every transition. */
  readonly state$?: Observable<string>;
}

/**
 * An event read by its fields, not by its place in the `PolicyEvent` union,
 * so that events added by later policies (breaker `stateChange`, limiter
 * `rejected`, ...) are understood without this module depending on them.
 */
export interface LooseEvent {
  readonly type: string;
  readonly policy: string;
  readonly [field: string]: unknown;
}

/** The event as a {@link LooseEvent}. */
export function loose(event: PolicyEvent): LooseEvent {
  return event as unknown as LooseEvent;
}

/** The names of `target`'s policies (itself, or a pipeline's policies), in order, repeats kept. */
export function policyNamesOf(target: Observed): string[] {
  return (target.policies ?? [target]).map((p) => String((p as Observed | undefined)?.name ?? ''));
}

/** The breakers among `target` (itself, or a pipeline's policies): each with a name and a `state$`. */
export function breakersOf(target: Observed): { name: string; state$: Observable<string> }[] {
  const members = target.policies ?? [target];
  const out: { name: string; state$: Observable<string> }[] = [];
  for (const p of members) {
    const state$ = (p as Observed | undefined)?.state$;
    if (isObservable(state$)) out.push({ name: (p as Observed).name, state$: state$ as Observable<string> });
  }
  return out;
}

/** The gauge value of a breaker state: 0 closed, 1 open, 2 half-open (gobreaker's numbering); -1 for anything else. */
export function stateValue(state: unknown): number {
  switch (state) {
    case 'closed':
      return 0;
    case 'open':
      return 1;
    case 'half-open':
      return 2;
    default:
      return -1;
  }
}

/**
 * Maps the `policy` field of an event to the name metrics and throttles use.
 * A keyed breaker's breakers emit under `name:key` (one name per tenant or
 * host): those collapse to the keyed breaker's own `name`, with the rest as
 * the key, so label values stay bounded. Names not under a known policy pass
 * unchanged.
 */
export class PolicyNames {
  private readonly known: readonly string[];
  /** The key split off by the last {@link PolicyNames.base} call, `undefined` if none. */
  key: string | undefined = undefined;

  constructor(target: Observed) {
    const names = new Set<string>([target.name]);
    for (const p of target.policies ?? []) {
      const n = (p as { name?: unknown } | undefined)?.name;
      if (typeof n === 'string') names.add(n);
    }
    // longest first, so `a:b` wins over `a` for `a:b:c`
    this.known = [...names].sort((x, y) => y.length - x.length);
  }

  /** The bounded name for `policy`; sets {@link PolicyNames.key}. */
  base(policy: string): string {
    this.key = undefined;
    for (const n of this.known) if (n === policy) return n;
    for (const n of this.known) {
      if (policy.length > n.length + 1 && policy.charCodeAt(n.length) === 58 /* : */ && policy.startsWith(n)) {
        this.key = policy.slice(n.length + 1);
        return n;
      }
    }
    return policy;
  }
}
