// Quick success-path cost per call: the canonical chain without a breaker vs a bare await.
// The full comparison against cockatiel and opossum is `npm run bench`.
import { policy } from '../dist/index.js';

const fn = async () => 1;
const chain = policy().timeout(1000).retry({ maxAttempts: 3 }).fallback(() => 0);

async function measure(run, n) {
  for (let i = 0; i < 50_000; i++) await run();
  const t = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await run();
  return Number(process.hrtime.bigint() - t) / n;
}

const N = 1_000_000;
const rows = [];
for (let round = 0; round < 5; round++) {
  rows.push([await measure(fn, N), await measure(() => chain.execute(fn), N)]);
}
const median = (xs) => xs.sort((a, b) => a - b)[xs.length >> 1];
const bare = median(rows.map((r) => r[0]));
const ours = median(rows.map((r) => r[1]));
console.log(`node ${process.version}`);
console.log(`bare await fn():                                   ${bare.toFixed(0)} ns/call`);
console.log(`timeout(1000).retry({maxAttempts:3}).fallback(..): ${ours.toFixed(0)} ns/call (${(ours / bare).toFixed(1)}x bare, overhead ${(ours - bare).toFixed(0)} ns)`);
