// Two builds of breakwater side by side in one process, interleaved round by
// round with the bench's own harness: the canonical chain (unobserved and with
// a subscriber on every events$) of each build, a bare await and cockatiel's chain.
//   node --expose-gc bench/ab.mjs <dir of build A> <dir of build B>
// where each dir holds a build's dist/ (e.g. a `git archive` of main, built).
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { median, minus, roundsOf } from './lib/measure.mjs';
import { cockatielChain, op } from './lib/subjects.mjs';

const dirs = process.argv.slice(2);
if (dirs.length !== 2) {
  console.error('usage: node --expose-gc bench/ab.mjs <dir A> <dir B>');
  process.exit(2);
}
const [a, b] = await Promise.all(dirs.map((d) => import(pathToFileURL(resolve(d, 'dist/index.js')).href)));
const chain = (m) => m.policy().timeout(1000).retry({ maxAttempts: 3 }).breaker().fallback(() => 0);
const watched = (m) => {
  const p = chain(m);
  for (const q of p.policies) q.events$.subscribe(() => {});
  return p;
};
const [ca, cb, wa, wb, theirs] = [chain(a), chain(b), watched(a), watched(b), cockatielChain()];
const r = await roundsOf({
  bare: () => op(),
  'A chain': () => ca.execute(op),
  'B chain': () => cb.execute(op),
  'A observed': () => wa.execute(op),
  'B observed': () => wb.execute(op),
  cockatiel: () => theirs.execute(op),
});
const m = (k) => median(r[k]);
const over = (k) => median(minus(r[k], r.bare));
console.log(`A = ${dirs[0]}, B = ${dirs[1]}; medians of ${r.bare.length} rounds, CPU ns per call`);
for (const s of ['A', 'B']) {
  console.log(
    `${s}: chain ${m(`${s} chain`).toFixed(0)} ns (${(m(`${s} chain`) / m('bare')).toFixed(2)}x bare ${m('bare').toFixed(0)} ns; overhead 1/${(over('cockatiel') / over(`${s} chain`)).toFixed(1)} of cockatiel's ${over('cockatiel').toFixed(0)} ns); observed ${(m(`${s} observed`) / m(`${s} chain`)).toFixed(2)}x`,
  );
}
