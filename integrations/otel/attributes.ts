/** The attribute naming the policy that reports (its `name` option). */
export const ATTR_POLICY = 'breakwater.policy.name';

/** The attribute of a call's outcome: `success`, `failure`, `timeout`, `rejected`, `cancelled` or `fallback`. */
export const ATTR_OUTCOME = 'breakwater.call.outcome';

/** The attribute of the breaker state a `breakwater.breaker.state` point is for: `closed`, `open` or `half_open`. */
export const ATTR_STATE = 'breakwater.breaker.state';

/** The attribute of a keyed breaker's key (only with `perKey`). */
export const ATTR_KEY = 'breakwater.policy.key';

/** The semantic conventions' attribute of a failed call's error class (see `errorType`). */
export const ATTR_ERROR_TYPE = 'error.type';

/**
 * True for an attribute name breakwater sets itself, which constant
 * `attributes` may not use: the whole `breakwater.` namespace, and `error.type`.
 *
 * @example
 * ```ts
 * isTakenAttribute('breakwater.policy.name'); // true
 * isTakenAttribute('service.name'); // false
 * ```
 */
export function isTakenAttribute(name: string): boolean {
  return name.startsWith('breakwater.') || name === ATTR_ERROR_TYPE;
}
