// A pipeline surviving a flaky dependency: run with `npm start` (after `npm install`).
// The dependency fails 40 % of calls and hangs on 10 %; breakwater times out the
// hung attempts, retries with jittered backoff, and answers the rest from a fallback.
import { policy, constant } from '../dist/index.js';
import { seededRandom } from '../dist/testing.js';

const random = seededRandom(7);
let calls = 0;
async function flakyInventory(ctx) {
  calls++;
  const r = random();
  if (r < 0.4) throw new Error('503 from inventory');
  if (r < 0.5) {
    // hangs until breakwater's timeout aborts ctx.signal
    return new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true }));
  }
  return { sku: 'A-1', stock: Math.floor(r * 100) };
}

const resilient = policy()
  .timeout(20) // each attempt may take 20 ms
  .retry({ maxAttempts: 3, backoff: constant(5) }) // three tries in all
  .fallback(() => ({ sku: 'A-1', stock: null, stale: true })); // answer whatever is left

let direct = 0;
let protectedOk = 0;
let degraded = 0;
const N = 200;
for (let i = 0; i < N; i++) {
  try {
    await Promise.race([flakyInventory({ signal: AbortSignal.timeout(20) }), new Promise((_, j) => setTimeout(() => j(new Error('hung')), 20))]);
    direct++;
  } catch {}
  const answer = await resilient.execute(flakyInventory);
  if (answer.stale) degraded++;
  else protectedOk++;
}

console.log(`flaky dependency, ${N} requests each way`);
console.log(`  without breakwater: ${direct}/${N} answered (${((100 * direct) / N).toFixed(1)} %)`);
console.log(`  with timeout → retry → fallback: ${protectedOk + degraded}/${N} answered`);
console.log(`    ${protectedOk} real answers (${((100 * protectedOk) / N).toFixed(1)} %), ${degraded} degraded from the fallback`);
console.log(`  dependency calls made: ${calls}`);
