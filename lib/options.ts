import { isClock, type Clock } from './clock.js';
import { ConfigError, type ConfigIssue } from './errors.js';

/**
 * Returns what `build` makes, at once. Every module-level rule is written
 * `export const x = /* @__PURE__ *\/ defineRule(() => object({ ... }))` so that
 * a bundler sees the whole definition as one call free of side effects and
 * drops it from an app that never checks those options (esbuild does not
 * carry the builders' `@__NO_SIDE_EFFECTS__` across modules).
 */
/* @__NO_SIDE_EFFECTS__ */
export function defineRule<T>(build: () => T): T {
  return build();
}

/** A step of an option's path: a key of an object or an index of an array. */
export type PathPart = string | number;

/** Formats a path as `policies[1].maxAttempts`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out;
}

interface Finding {
  readonly path: readonly PathPart[];
  readonly message: string;
  /** A wrong type or a failed predicate: the enclosing object's cross-field rules are skipped, as zod skips them. */
  readonly fatal: boolean;
}

/** What the rules of one check found, in the order they found it. */
export class Findings {
  /** Every problem so far. */
  readonly list: Finding[] = [];
  /** Records a problem at `path`. */
  add(path: readonly PathPart[], message: string, fatal: boolean): void {
    this.list.push({ path, message, fatal });
  }
  /** True when a problem recorded since `start` was a wrong type or a failed predicate. */
  fatalSince(start: number): boolean {
    for (let i = start; i < this.list.length; i++) if (this.list[i]!.fatal) return true;
    return false;
  }
  /** The problems as {@link ConfigIssue}s. */
  issues(): ConfigIssue[] {
    return this.list.map((f) => ({ path: formatPath(f.path), message: f.message }));
  }
}

/**
 * One option rule: returns the value (with defaults applied) and records
 * every problem in `found`; what it returns after a problem is not used.
 */
export type Rule<T> = (value: unknown, path: readonly PathPart[], found: Findings) => T;

/** The type a rule returns. */
export type RuleOutput<R> = R extends Rule<infer T> ? T : never;

/**
 * Checks `input` with `rule` once, at construction, and returns it with its
 * defaults applied; throws a {@link ConfigError} listing every problem, each
 * with its path.
 */
export function checkOptions<T>(rule: Rule<T>, input: unknown, policy: string): T {
  const found = new Findings();
  const out = rule(input, [], found);
  if (found.list.length > 0) throw new ConfigError(policy, found.issues());
  return out;
}

/**
 * Hot reload's one refusal: throws a {@link ConfigError} naming each option of
 * `fixed` whose value in `next` differs from `current` (they shape the
 * policy's `shape`, so a change needs a new `what`); returns otherwise.
 */
export function refuseReshape(policy: string, fixed: readonly string[], current: object, next: object, shape: string, what: string): void {
  const before = current as Record<string, unknown>;
  const after = next as Record<string, unknown>;
  const changed = fixed.filter((k) => after[k] !== before[k]);
  if (changed.length > 0) cannotReshape(policy, changed, shape, what);
}

/** Throws the {@link ConfigError} of {@link refuseReshape} for the options at `paths`. */
export function cannotReshape(policy: string, paths: readonly string[], shape: string, what: string): never {
  throw new ConfigError(policy, paths.map((path) => ({ path, message: `cannot change in place (it shapes the ${shape}); build a new ${what}` })));
}

/** The name of a value's type in the words of the type messages ("received string", "received null"). */
export function typeName(value: unknown): string {
  if (typeof value === 'number') return Number.isFinite(value) ? 'number' : String(value);
  if (typeof value !== 'object') return typeof value;
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  const proto: unknown = Object.getPrototypeOf(value);
  const ctor = (value as { constructor?: { name?: unknown } }).constructor;
  if (proto !== Object.prototype && ctor && typeof ctor.name === 'string' && ctor.name !== '') return ctor.name;
  return 'object';
}

/** The message for a value of the wrong type: `Invalid input: expected string, received number`. */
export const expectedType = /* @__NO_SIDE_EFFECTS__ */ (expected: string, value: unknown): string => `Invalid input: expected ${expected}, received ${typeName(value)}`;

/** A range check on a number: the message when `n` breaks it, else undefined. */
export type NumberCheck = (n: number) => string | undefined;

/** `n >= min`, else `message`. */
export const atLeast = /* @__NO_SIDE_EFFECTS__ */ (min: number, message: string): NumberCheck => (n) => (n >= min ? undefined : message);
/** `n <= max`, else `message`. */
export const atMost = /* @__NO_SIDE_EFFECTS__ */ (max: number, message: string): NumberCheck => (n) => (n <= max ? undefined : message);
/** `n > bound`, else `message`. */
export const above = /* @__NO_SIDE_EFFECTS__ */ (bound: number, message: string): NumberCheck => (n) => (n > bound ? undefined : message);
/** `n < bound`, else `message`. */
export const below = /* @__NO_SIDE_EFFECTS__ */ (bound: number, message: string): NumberCheck => (n) => (n < bound ? undefined : message);
/** `test(n)`, else `message`. */
export const satisfies = /* @__NO_SIDE_EFFECTS__ */ (test: (n: number) => boolean, message: string): NumberCheck => (n) => (test(n) ? undefined : message);

/**
 * A finite number: anything else (NaN and ±Infinity included) breaks it with
 * `typeMessage`; then every range check runs and reports its own message.
 */
/* @__NO_SIDE_EFFECTS__ */
export function number(typeMessage: string, ...checks: NumberCheck[]): Rule<number> {
  return (value, path, found) => {
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      found.add(path, typeMessage, true);
      return value as number;
    }
    for (const check of checks) {
      const message = check(value);
      if (message !== undefined) found.add(path, message, false);
    }
    return value;
  };
}

/** A finite integer: a fraction breaks it with `typeMessage` as a wrong type does; then the range checks run. */
/* @__NO_SIDE_EFFECTS__ */
export function integer(typeMessage: string, ...checks: NumberCheck[]): Rule<number> {
  const finite = number(typeMessage, ...checks);
  return (value, path, found) => {
    if (typeof value === 'number' && Number.isFinite(value) && !Number.isInteger(value)) {
      found.add(path, typeMessage, true);
      return value;
    }
    // Past 2^53 integers lose precision: zod reports that too, and checks the range on.
    if (typeof value === 'number' && Number.isInteger(value) && !Number.isSafeInteger(value)) found.add(path, typeMessage, false);
    return finite(value, path, found);
  };
}

/** A finite number of milliseconds greater than zero. */
export const positiveMs: Rule<number> = number('expected a finite number of milliseconds', above(0, 'expected a number greater than 0'));

/** A finite number of milliseconds, zero allowed. */
export const nonNegativeMs: Rule<number> = number('expected a finite number of milliseconds', atLeast(0, 'expected a number >= 0'));

const RATIO = 'expected a number in [0, 1]';
/** A ratio in [0, 1]. */
export const ratio: Rule<number> = number(RATIO, atLeast(0, RATIO), atMost(1, RATIO));

/** An integer >= `min`, every failure in the same words. */
/* @__NO_SIDE_EFFECTS__ */
export function intAtLeast(min: number): Rule<number> {
  const message = `expected an integer >= ${min}`;
  return integer(message, atLeast(min, message));
}

/** A finite number >= `min`, every failure in the same words (`expected a finite number >= 1`). */
/* @__NO_SIDE_EFFECTS__ */
export function numberAtLeast(min: number): Rule<number> {
  const message = `expected a finite number >= ${min}`;
  return number(message, atLeast(min, message));
}

/** One of the given strings (or other primitives). */
/* @__NO_SIDE_EFFECTS__ */
export function oneOf<const V extends readonly (string | number | boolean)[]>(values: V, message?: string): Rule<V[number]> {
  const words = message ?? (values.length === 1 ? `Invalid input: expected ${show(values[0])}` : `Invalid option: expected one of ${values.map(show).join('|')}`);
  return (value, path, found) => {
    if (!values.includes(value as V[number])) found.add(path, words, true);
    return value as V[number];
  };
}

function show(v: unknown): string {
  return typeof v === 'string' ? `"${v}"` : String(v);
}

/** A string of at least one character. */
/* @__NO_SIDE_EFFECTS__ */
export function nonEmptyString(message = 'expected a non-empty string'): Rule<string> {
  return (value, path, found) => {
    if (typeof value !== 'string') found.add(path, expectedType('string', value), true);
    // zod measures the length of whatever it was given, so an empty array breaks both rules; so does this.
    if ((value as { length?: unknown } | null | undefined)?.length === 0) found.add(path, message, false);
    return value as string;
  };
}

/** A policy name. */
export const name: Rule<string> = nonEmptyString();

/** `true` or `false`; anything else breaks it with `message` (by default the type message). */
/* @__NO_SIDE_EFFECTS__ */
export function bool(message?: string): Rule<boolean> {
  return (value, path, found) => {
    if (typeof value !== 'boolean') found.add(path, message ?? expectedType('boolean', value), true);
    return value as boolean;
  };
}

/** `true` or `false`. */
export const boolean: Rule<boolean> = bool();

/** Any value that passes `test`, else `message`. */
/* @__NO_SIDE_EFFECTS__ */
export function custom<T>(test: (value: unknown) => boolean, message: string): Rule<T> {
  return (value, path, found) => {
    if (!test(value)) found.add(path, message, true);
    return value as T;
  };
}

/** Any value at all. */
export const anything: Rule<unknown> = (value) => value;

/** A function of any signature; its type is written where it is used. */
export const fn = /* @__NO_SIDE_EFFECTS__ */ <F extends (...args: never[]) => unknown>(message = 'expected a function'): Rule<F> =>
  custom<F>((v) => typeof v === 'function', message);

/** A handle predicate: which thrown values (or results) a policy acts on. */
export const predicate: Rule<(value: unknown) => boolean> = fn<(value: unknown) => boolean>();

/** A {@link Clock}: an object with `now`, `setTimeout` and `clearTimeout`. */
export const clock: Rule<Clock> = custom<Clock>(isClock, 'expected a Clock (now, setTimeout, clearTimeout)');

/** A random source: a function returning a number in [0, 1). */
export const random: Rule<() => number> = fn<() => number>('expected a function returning a number in [0, 1)');

/** `rule`, or left out. */
/* @__NO_SIDE_EFFECTS__ */
export function optional<T>(rule: Rule<T>): Rule<T | undefined> {
  return (value, path, found) => (value === undefined ? undefined : rule(value, path, found));
}

/** `rule`, or `null`. */
/* @__NO_SIDE_EFFECTS__ */
export function nullable<T>(rule: Rule<T>): Rule<T | null> {
  return (value, path, found) => (value === null ? null : rule(value, path, found));
}

/** `rule`, applied to `input` when left out (so the default gets the rule's own defaults). */
/* @__NO_SIDE_EFFECTS__ */
export function prefault<T>(rule: Rule<T>, input: unknown): Rule<T> {
  return (value, path, found) => rule(value === undefined ? input : value, path, found);
}

/** `rule`, or `fallback` when left out. */
/* @__NO_SIDE_EFFECTS__ */
export function withDefault<T>(rule: Rule<T>, fallback: T): Rule<T> {
  return (value, path, found) => (value === undefined ? fallback : rule(value, path, found));
}

/**
 * The first rule the value passes; when it passes none, the problems of the
 * rule it came closest to (a range broken rather than a wrong type, else the
 * fewest problems).
 */
/* @__NO_SIDE_EFFECTS__ */
export function either<A, B>(first: Rule<A>, second: Rule<B>): Rule<A | B> {
  return (value, path, found) => {
    const tries = [first, second].map((rule) => {
      const own = new Findings();
      return { out: rule(value, path, own), own };
    });
    const pick = tries.find((t) => t.own.list.length === 0) ?? tries.find((t) => !t.own.fatalSince(0));
    if (pick) {
      found.list.push(...pick.own.list);
      return pick.out;
    }
    const best = tries.reduce((a, b) => (b.own.list.length < a.own.list.length ? b : a));
    for (const f of best.own.list) found.add(f.path, f.message, true);
    return best.out;
  };
}

/** An array of exactly as many items as `rules`, each passing its own rule. */
/* @__NO_SIDE_EFFECTS__ */
export function tuple<const R extends readonly Rule<unknown>[]>(rules: R): Rule<{ -readonly [I in keyof R]: RuleOutput<R[I]> }> {
  type Out = { -readonly [I in keyof R]: RuleOutput<R[I]> };
  return (value, path, found) => {
    if (!Array.isArray(value)) {
      found.add(path, expectedType('tuple', value), true);
      return value as Out;
    }
    if (value.length !== rules.length) {
      const words = value.length < rules.length ? `Too small: expected array to have >=${rules.length} items` : `Too big: expected array to have <=${rules.length} items`;
      found.add(path, words, true);
      return value as Out;
    }
    return rules.map((rule, i) => rule(value[i], [...path, i], found)) as Out;
  };
}

/** An array whose every item passes `rule`. */
/* @__NO_SIDE_EFFECTS__ */
export function array<T>(rule: Rule<T>): Rule<T[]> {
  return (value, path, found) => {
    if (!Array.isArray(value)) {
      found.add(path, expectedType('array', value), true);
      return value as T[];
    }
    return value.map((v, i) => rule(v, [...path, i], found));
  };
}

/** A plain object whose every value passes `rule`, under any keys. */
/* @__NO_SIDE_EFFECTS__ */
export function record<T>(rule: Rule<T>): Rule<Record<string, T>> {
  return (value, path, found) => {
    const proto: unknown = typeof value === 'object' && value !== null ? Object.getPrototypeOf(value) : undefined;
    if (Array.isArray(value) || (proto !== Object.prototype && proto !== null)) {
      found.add(path, expectedType('record', value), true);
      return value as Record<string, T>;
    }
    const out: Record<string, T> = {};
    for (const [key, v] of Object.entries(value as object)) out[key] = rule(v, [...path, key], found);
    return out;
  };
}

/** The rules of an object's options, key by key. */
export type Shape = Readonly<Record<string, Rule<unknown>>>;

type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** What an object rule returns: keys whose rule may give `undefined` are optional. */
export type ShapeOutput<S extends Shape> = Simplify<
  { [K in keyof S as undefined extends RuleOutput<S[K]> ? never : K]: RuleOutput<S[K]> } & {
    [K in keyof S as undefined extends RuleOutput<S[K]> ? K : never]?: RuleOutput<S[K]>;
  }
>;

/**
 * A cross-field rule of an object, run once every key passed its type (zod's
 * `refine`): `add` records a problem at a path inside the object.
 */
export type Refinement<T> = (value: T, add: (message: string, path?: readonly PathPart[]) => void) => void;

/** An object rule that still knows its keys, so a variant can leave some out. */
export interface ObjectRule<S extends Shape> extends Rule<ShapeOutput<S>> {
  /** The rules, key by key. */
  readonly shape: S;
}

const onceValid = new WeakSet<Refinement<never>>();

/**
 * The same cross-field rule, run only when every key passed all its rules (a
 * range included), so one mistake is not reported twice.
 */
/* @__NO_SIDE_EFFECTS__ */
export function whenValid<T>(refine: Refinement<T>): Refinement<T> {
  onceValid.add(refine as Refinement<never>);
  return refine;
}

/**
 * An options object with known keys only: each key checked by its rule (a
 * key not in `shape` is an `unknown option`), then each refinement in order.
 */
/* @__NO_SIDE_EFFECTS__ */
export function object<S extends Shape>(shape: S, ...refinements: Refinement<ShapeOutput<S>>[]): ObjectRule<S> {
  const keys = Object.keys(shape);
  const rule: Rule<ShapeOutput<S>> = (value, path, found) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      found.add(path, expectedType('object', value), true);
      return value as ShapeOutput<S>;
    }
    const start = found.list.length;
    const input = value as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const key of keys) {
      const v = shape[key]!(input[key], [...path, key], found);
      if (v !== undefined || key in input) out[key] = v;
    }
    for (const key of Object.keys(input)) if (!(key in shape)) found.add([...path, key], 'unknown option', false);
    for (const refine of refinements) {
      if (onceValid.has(refine) ? found.list.length > start : found.fatalSince(start)) continue;
      refine(out as ShapeOutput<S>, (message, at = []) => found.add([...path, ...at], message, false));
    }
    return out as ShapeOutput<S>;
  };
  return Object.assign(rule, { shape });
}

/** The same object rule without `leave` (for options that may not change after construction). */
/* @__NO_SIDE_EFFECTS__ */
export function omit<S extends Shape, K extends keyof S & string>(rule: ObjectRule<S>, leave: readonly K[]): ObjectRule<Omit<S, K>> {
  const shape: Record<string, Rule<unknown>> = {};
  for (const [key, r] of Object.entries(rule.shape)) if (!(leave as readonly string[]).includes(key)) shape[key] = r;
  return object(shape as Omit<S, K>);
}

/**
 * One of several object rules, chosen by the string under `key`
 * (`{ kind: 'tokenBucket', ... }`); a value that is not an object breaks it
 * with `message` (by default the type message), one that names no known
 * variant with `tagMessage` at `key` (by default the list of variants).
 */
/* @__NO_SIDE_EFFECTS__ */
export function discriminated<K extends string, V extends Readonly<Record<string, Rule<unknown>>>>(
  key: K,
  variants: V,
  message?: string,
  tagMessage = message ?? `Invalid discriminator value. Expected ${Object.keys(variants).map((v) => `'${v}'`).join(' | ')}`,
): Rule<RuleOutput<V[keyof V]>> {
  return (value, path, found) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      found.add(path, message ?? expectedType('object', value), true);
      return value as RuleOutput<V[keyof V]>;
    }
    const tag = (value as Record<string, unknown>)[key];
    const variant = typeof tag === 'string' && Object.hasOwn(variants, tag) ? variants[tag] : undefined;
    if (variant === undefined) {
      found.add([...path, key], tagMessage, true);
      return value as RuleOutput<V[keyof V]>;
    }
    return variant(value, path, found) as RuleOutput<V[keyof V]>;
  };
}

/** `rule`, then cross-field rules on what it returned, unless it found a wrong type (as an object's own refinements). */
/* @__NO_SIDE_EFFECTS__ */
export function refined<T>(rule: Rule<T>, ...refinements: Refinement<T>[]): Rule<T> {
  return (value, path, found) => {
    const start = found.list.length;
    const out = rule(value, path, found);
    for (const refine of refinements) {
      if (onceValid.has(refine) ? found.list.length > start : found.fatalSince(start)) continue;
      refine(out, (message, at = []) => found.add([...path, ...at], message, false));
    }
    return out;
  };
}
