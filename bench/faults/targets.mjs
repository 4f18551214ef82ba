// The targets the two breakwater variants (the canonical chain and
// strategies.standard) are judged by, each against figures of the same run.
// A target whose scenario, or a variant it compares with, was not run is `n/a`.

/** The variants judged. */
export const judged = ['canonical', 'standard'];

/** The figures a target can be about: label, unit, and how to read it from a run's figures. */
export const figures = {
  recovery: { label: 'recovery after the fault', unit: 's', get: (f) => f.recoveryS },
  realAfter: { label: 'real answers in the phase after', unit: '%', get: (f) => f.after.realShare },
  realDuring: { label: 'real answers during the fault', unit: '%', get: (f) => f.during.realShare },
  load: { label: "C's load during the fault, x healthy", unit: 'x', get: (f) => f.upstreamLoad.ratio },
};

const EPS = 1e-9;
/** A check given the judged variant's value and every variant's value; undefined when a needed one is missing. */
const atMost = (limit) => (v) => v !== null && v <= limit + EPS;
const atLeast = (limit) => (v) => v !== null && v >= limit - EPS;
const others = (names, check) => (v, all) => (names.some((n) => all[n] === undefined || all[n] === null) ? undefined : check(v, names.map((n) => all[n])));
const belowAll = (names) => others(names, (v, theirs) => v !== null && theirs.every((t) => v < t));
const atLeastAll = (names) => others(names, (v, theirs) => v !== null && theirs.every((t) => v >= t - EPS));
const and = (a, b) => (v, all) => {
  const x = b(v, all);
  return x === undefined ? undefined : a(v, all) && x;
};
const same = (text, check) => ({ canonical: [text, check], standard: [text, check] });
const PEERS = ['cockatiel', 'opossum'];

/** The targets, in the order of the issue that set them: [scenario, figure, { variant: [text, check] }]. */
export const targets = [
  ...['outage', 'outage-12s', 'hanging', 'latency'].flatMap((s) => [
    [s, 'recovery', same('<= 1 s', atMost(1))],
    [s, 'realAfter', same('>= 95 %', atLeast(0.95))],
    ...(s.startsWith('outage')
      ? [[s, 'load', { canonical: ['below both peers', belowAll(PEERS)], standard: ['<= 1.2x and below both peers', and(atMost(1.2), belowAll(PEERS))] }]]
      : []),
  ]),
  ['capacity', 'realDuring', { canonical: [">= bare's", atLeastAll(['bare'])], standard: ['>= 55 %', atLeast(0.55)] }],
  ['capacity', 'recovery', same('<= 2 s', atMost(2))],
  ['errors', 'realDuring', same('>= 97 %', atLeast(0.97))],
  ['errors', 'load', same('<= 1.45x', atMost(1.45))],
  ['flapping', 'realDuring', same("at least bare's and both peers'", atLeastAll(['bare', ...PEERS]))],
];

const verdict = (x) => (x === undefined ? 'n/a' : x ? 'yes' : 'NO');

/**
 * Every target row for `results` (scenario -> variant -> figures of
 * bench/faults/analyze.mjs) whose scenario was run, and last the row "A never
 * sees an error or a client timeout where a fallback is configured".
 */
export function targetRows(results) {
  const rows = [];
  for (const [scenario, key, rules] of targets) {
    const perVariant = results[scenario];
    if (perVariant === undefined) continue;
    const values = Object.fromEntries(Object.entries(perVariant).map(([variant, f]) => [variant, figures[key].get(f)]));
    const limits = Object.fromEntries(Object.entries(perVariant).map(([variant, f]) => [variant, f.recoveryLimitS]));
    const met = {};
    for (const variant of judged) met[variant] = values[variant] === undefined ? 'n/a' : verdict(rules[variant][1](values[variant], values));
    rows.push({ scenario, key, figure: figures[key].label, unit: figures[key].unit, target: judged.map((v) => `${v} ${rules[v][0]}`).join('; '), values, limits, met });
  }
  const bad = {};
  for (const perVariant of Object.values(results)) {
    for (const [variant, f] of Object.entries(perVariant)) bad[variant] = (bad[variant] ?? 0) + f.counts.error + f.counts.timeout;
  }
  rows.push({
    scenario: 'all run',
    key: 'bad',
    figure: 'errors + client timeouts seen by A',
    unit: 'n',
    target: 'canonical 0; standard 0',
    values: bad,
    limits: {},
    met: Object.fromEntries(judged.map((v) => [v, bad[v] === undefined ? 'n/a' : verdict(bad[v] === 0)])),
  });
  return rows;
}
