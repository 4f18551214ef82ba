/**
 * Deep strict equality of data, as Node's `util.isDeepStrictEqual` judges it
 * for the values a codec produces (primitives by `Object.is`, so `NaN`
 * equals `NaN` and `0` differs from `-0`; prototypes must match; own
 * enumerable keys, an `undefined` field included; arrays, Dates, RegExps,
 * Maps, Sets, typed arrays and boxed primitives by content; cycles allowed),
 * in plain code that runs in every runtime.
 */
export function deepStrictEqual(a: unknown, b: unknown): boolean {
  return equal(a, b, new Map());
}

type Seen = Map<object, Set<object>>;

function equal(a: unknown, b: unknown, seen: Seen): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  const tag = Object.prototype.toString.call(a);
  if (tag !== Object.prototype.toString.call(b)) return false;
  // a pair already being compared further up is assumed equal (a cycle)
  let pairs = seen.get(a);
  if (pairs?.has(b)) return true;
  if (pairs === undefined) seen.set(a, (pairs = new Set()));
  pairs.add(b);
  if (!sameContent(a, b, tag, seen)) return false;
  return sameKeys(a, b, seen);
}

function sameContent(a: object, b: object, tag: string, seen: Seen): boolean {
  switch (tag) {
    case '[object Date]':
      return Object.is((a as Date).getTime(), (b as Date).getTime());
    case '[object RegExp]':
      return (a as RegExp).source === (b as RegExp).source && (a as RegExp).flags === (b as RegExp).flags && (a as RegExp).lastIndex === (b as RegExp).lastIndex;
    case '[object Number]':
    case '[object String]':
    case '[object Boolean]':
    case '[object BigInt]':
    case '[object Symbol]':
      return Object.is((a as { valueOf(): unknown }).valueOf(), (b as { valueOf(): unknown }).valueOf());
    case '[object Error]':
      return (a as Error).message === (b as Error).message && (a as Error).name === (b as Error).name;
    case '[object Map]':
      return sameMap(a as Map<unknown, unknown>, b as Map<unknown, unknown>, seen);
    case '[object Set]':
      return sameSet(a as Set<unknown>, b as Set<unknown>, seen);
    case '[object ArrayBuffer]':
      return sameBytes(new Uint8Array(a as ArrayBuffer), new Uint8Array(b as ArrayBuffer));
    case '[object DataView]':
      return sameBytes(new Uint8Array((a as DataView).buffer, (a as DataView).byteOffset, (a as DataView).byteLength), new Uint8Array((b as DataView).buffer, (b as DataView).byteOffset, (b as DataView).byteLength));
    default:
      if (ArrayBuffer.isView(a)) {
        const x = a as unknown as ArrayLike<unknown>;
        const y = b as unknown as ArrayLike<unknown>;
        if (x.length !== y.length) return false;
        for (let i = 0; i < x.length; i++) if (!Object.is(x[i], y[i])) return false;
      }
      return true;
  }
}

function sameBytes(x: Uint8Array, y: Uint8Array): boolean {
  if (x.length !== y.length) return false;
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
  return true;
}

function sameMap(a: Map<unknown, unknown>, b: Map<unknown, unknown>, seen: Seen): boolean {
  if (a.size !== b.size) return false;
  const unmatched: [unknown, unknown][] = [];
  for (const [k, v] of a) {
    if (b.has(k)) {
      if (!equal(v, b.get(k), seen)) return false;
    } else if (typeof k === 'object' && k !== null) unmatched.push([k, v]);
    else return false;
  }
  if (unmatched.length === 0) return true;
  // object keys not found by identity: each must match a distinct key of b deeply, with an equal value
  const candidates = [...b].filter(([k]) => typeof k === 'object' && k !== null && !a.has(k));
  for (const [k, v] of unmatched) {
    const i = candidates.findIndex(([k2, v2]) => equal(k, k2, seen) && equal(v, v2, seen));
    if (i < 0) return false;
    candidates.splice(i, 1);
  }
  return true;
}

function sameSet(a: Set<unknown>, b: Set<unknown>, seen: Seen): boolean {
  if (a.size !== b.size) return false;
  const unmatched: unknown[] = [];
  for (const v of a) {
    if (b.has(v)) continue;
    if (typeof v === 'object' && v !== null) unmatched.push(v);
    else return false;
  }
  if (unmatched.length === 0) return true;
  const candidates = [...b].filter((v) => typeof v === 'object' && v !== null && !a.has(v));
  for (const v of unmatched) {
    const i = candidates.findIndex((w) => equal(v, w, seen));
    if (i < 0) return false;
    candidates.splice(i, 1);
  }
  return true;
}

function sameKeys(a: object, b: object, seen: Seen): boolean {
  const ka = ownKeys(a);
  const kb = ownKeys(b);
  if (ka.length !== kb.length) return false;
  const rb = b as Record<PropertyKey, unknown>;
  const ra = a as Record<PropertyKey, unknown>;
  for (const k of ka) {
    if (!Object.prototype.propertyIsEnumerable.call(b, k)) return false;
    if (!equal(ra[k], rb[k], seen)) return false;
  }
  return true;
}

/** Own enumerable keys (symbols included); a typed array's indices are compared as content, not keys. */
function ownKeys(o: object): PropertyKey[] {
  const keys: PropertyKey[] = ArrayBuffer.isView(o) ? [] : Object.keys(o);
  for (const s of Object.getOwnPropertySymbols(o)) if (Object.prototype.propertyIsEnumerable.call(o, s)) keys.push(s);
  return keys;
}
