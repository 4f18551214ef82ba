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
