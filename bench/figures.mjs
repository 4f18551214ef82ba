// Every figure of quality.md "Performance" except lab speed. Each function
// measures its subjects side by side and returns rows for the table plus the
// raw per-round numbers.
import { cockatielBreakers, canonicalChain, cockatielChain, cockatielTimeoutPolicy, op, opossum, ourBreakers, ourTimeout } from './lib/subjects.mjs';
import { concurrentCalls, concurrentRounds, memoryInstances, memoryRounds } from './lib/config.mjs';
import { inChild } from './lib/children.mjs';
import { median, minus, roundsOf } from './lib/measure.mjs';

const bare = () => op();

/** A row: `ours` and `theirs` in `unit`, met when `ours / theirs <= maxRatio` and `ours <= absMax` (when given). */
function row(figure, unit, ours, theirs, theirsLabel, maxRatio, target, absMax) {
  const ratio = ours / theirs;
  const met = ratio <= maxRatio && (absMax === undefined || ours <= absMax);
  return { figure, unit, ours, theirs, theirsLabel, ratio, maxRatio, absMax, target, met };
}

export async function chain() {
  const ours = canonicalChain();
  const theirs = cockatielChain();
  const r = await roundsOf({ bare, ours: () => ours.execute(op), cockatiel: () => theirs.execute(op) });
  const oursOver = median(minus(r.ours, r.bare));
  const theirsOver = median(minus(r.cockatiel, r.bare));
  return {
    rows: [
      row('canonical chain, overhead above bare await', 'ns', oursOver, theirsOver, 'cockatiel wrap(...)', 1 / 40, '<= 1/40'),
      row('canonical chain, total vs bare await', 'ns', median(r.ours), median(r.bare), 'bare await fn()', 8, '<= 8x'),
    ],
    raw: r,
  };
}

export async function breakers() {
  const ours = Object.fromEntries(Object.entries(ourBreakers).map(([k, make]) => [k, make()]));
  const cock = Object.fromEntries(Object.entries(cockatielBreakers).map(([k, make]) => [k, make()]));
  const opo = opossum(op);
  const subjects = { bare };
  for (const [k, b] of Object.entries(ours)) subjects[`${k} allow+success`] = () => b.allow().success();
  for (const [k, b] of Object.entries(ours)) subjects[`${k} execute`] = () => b.execute(op);
  for (const [k, b] of Object.entries(cock)) subjects[`${k} execute`] = () => b.execute(op);
  subjects['opossum fire'] = () => opo.fire();
  const r = await roundsOf(subjects);
  const over = (k) => median(minus(r[k], r.bare));
  // The faster cockatiel breaker is the one to beat.
  const cockatielName = Object.keys(cock).sort((a, b) => over(`${a} execute`) - over(`${b} execute`))[0];
  const cockatielOver = over(`${cockatielName} execute`);
  const opossumOver = over('opossum fire');
  const fastest = cockatielOver <= opossumOver ? [cockatielOver, cockatielName] : [opossumOver, 'opossum fire()'];
  const rows = [];
  for (const k of Object.keys(ours)) {
    rows.push(row(`breaker permit path, ${k} allow()+success()`, 'ns', median(r[`${k} allow+success`]), cockatielOver, cockatielName.replace('Breaker', ''), 1 / 2, '<= 1/2'));
  }
  for (const k of Object.keys(ours)) {
    rows.push(row(`breaker execute overhead, ${k}`, 'ns', over(`${k} execute`), fastest[0], `faster: ${fastest[1].replace('Breaker', '')}`, 1, '<= 1x'));
  }
  return { rows, raw: { ...r, cockatielOverheadNs: cockatielOver, opossumOverheadNs: opossumOver } };
}

export async function timeoutAlone() {
  const ours = ourTimeout();
  const theirs = cockatielTimeoutPolicy();
  const r = await roundsOf({ bare, ours: () => ours.execute(op), cockatiel: () => theirs.execute(op) });
  return {
    rows: [row('timeout alone, per call', 'ns', median(r.ours), median(r.cockatiel), 'cockatiel Cooperative', 1 / 20, '<= 1/20')],
    raw: r,
  };
}

export async function concurrent() {
  const r = { breakwater: [], cockatiel: [] };
  for (let i = 0; i < concurrentRounds; i++) {
    for (const s of Object.keys(r)) r[s].push(await inChild('concurrent', s, concurrentCalls));
  }
  const m = (s, f) => median(r[s].map((x) => x[f]));
  const n = concurrentCalls.toLocaleString('en');
  return {
    rows: [
      row(`${n} concurrent timeouts, time to start`, 'ms', m('breakwater', 'startMs'), m('cockatiel', 'startMs'), 'cockatiel', 1 / 5, '<= 1/5'),
      row(`${n} concurrent timeouts, heap`, 'MB', m('breakwater', 'heapBytes') / 1e6, m('cockatiel', 'heapBytes') / 1e6, 'cockatiel', 1 / 5, '<= 1/5'),
    ],
    raw: r,
  };
}

export async function memory() {
  const subjects = [...Object.keys(ourBreakers), ...Object.keys(cockatielBreakers), 'opossum'];
  const r = Object.fromEntries(subjects.map((s) => [s, []]));
  for (let i = 0; i < memoryRounds; i++) {
    for (const s of subjects) r[s].push((await inChild('memory', s, memoryInstances)).bytesPerInstance);
  }
  const b = Object.fromEntries(subjects.map((s) => [s, median(r[s])]));
  const sampling = b['cockatiel SamplingBreaker'];
  return {
    rows: [
      row('memory per breaker, circuitBreaker(errorRatio)', 'B', b['circuitBreaker(errorRatio)'], sampling, 'cockatiel SamplingBreaker', 1 / 3, '<= 1/3, < 1,000 B', 1000),
      row('memory per breaker, breaker (default, 20 buckets)', 'B', b['breaker (default)'], sampling, 'cockatiel SamplingBreaker', Infinity, '< 1,000 B', 1000),
      row('memory per breaker, sreBreaker (40 buckets)', 'B', b.sreBreaker, sampling, 'cockatiel SamplingBreaker', Infinity, '< 1,000 B', 1000),
      row('memory per breaker, circuitBreaker(errorRatio) vs opossum', 'B', b['circuitBreaker(errorRatio)'], b.opossum, 'opossum (defaults)', Infinity, 'info'),
      row('memory per breaker, circuitBreaker(errorRatio) vs cockatiel Consecutive', 'B', b['circuitBreaker(errorRatio)'], b['cockatiel ConsecutiveBreaker'], 'cockatiel ConsecutiveBreaker', Infinity, 'info'),
    ],
    raw: r,
  };
}

export async function events() {
  const plain = canonicalChain();
  const watched = canonicalChain();
  let seen = 0;
  for (const p of watched.policies) p.events$.subscribe(() => seen++);
  const r = await roundsOf({ bare, unsubscribed: () => plain.execute(op), subscribed: () => watched.execute(op) });
  if (seen === 0) throw new Error('the subscribed chain emitted nothing');
  return {
    rows: [row('events: chain with a subscriber on every events$', 'ns', median(r.subscribed), median(r.unsubscribed), 'unsubscribed', 1.5, '<= 1.5x')],
    raw: { ...r, eventsSeen: seen },
  };
}

/** Import CPU time, browser bundle sizes and install size (bench/lib/weight.mjs; also alone: node bench/weight.mjs). */
export { weight } from './lib/weight.mjs';
