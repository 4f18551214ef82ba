import type { ExecutionContext } from './policy.js';

/**
 * How much a request matters when there is not room for all (after the
 * criticality classes of Google's SRE book): under overload, `sheddable`
 * requests are refused before `default` ones, and `default` before
 * `critical`. A request carries it in `ctx.meta.criticality`; one that says
 * nothing (or something else) is `default`.
 */
export type Criticality = 'critical' | 'default' | 'sheddable';

/** The `ctx.meta` key that carries a request's {@link Criticality}. */
export const CRITICALITY_META = 'criticality';

/** The criticalities, most important first. */
export const CRITICALITIES: readonly Criticality[] = ['critical', 'default', 'sheddable'];

/** True when `value` names a {@link Criticality}. */
export function isCriticality(value: unknown): value is Criticality {
  return value === 'critical' || value === 'default' || value === 'sheddable';
}

/** The criticality of a call: `ctx.meta.criticality` when it names one, else `'default'`. */
export function criticalityOf(ctx: Pick<ExecutionContext, 'meta'>): Criticality {
  const c = ctx.meta[CRITICALITY_META];
  return isCriticality(c) ? c : 'default';
}

/** The rank of a criticality: 0 for `critical`, 1 for `default`, 2 for `sheddable` (higher is shed first). */
export function criticalityRank(c: Criticality): number {
  return c === 'critical' ? 0 : c === 'default' ? 1 : 2;
}
