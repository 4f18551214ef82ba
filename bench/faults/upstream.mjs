// The upstream C: node:http on loopback with a fixed number of concurrent
// slots, a service time uniform in [serviceMinMs, serviceMaxMs] spent on a
// timer, and an unbounded FIFO queue in front of the slots. Like a connection
// pool, the queue also serves requests whose client has gone: a request holds
// its slot for its whole service time even if nobody waits for the answer.
// The fault schedule says, by arrival time, what each request gets (503 at
// once, no answer, a late answer, a 500); the capacity fault is read when a
// slot frees up. Counts go into 100 ms buckets from the run's start.
import { createServer } from 'node:http';
import { seededRandom } from '../../dist/testing.js';
import { asChild, loopDelay, next, now, tell } from './child.mjs';
import { behaviourAt, faults, upstream } from './scenarios.mjs';

const setup = await asChild();
const { schedule, seed } = setup;
const serviceRandom = seededRandom(seed);
// A separate stream, so the error draws do not shift the service times.
const errorRandom = seededRandom((seed ^ 0x9e3779b9) >>> 0);

const BUCKET_MS = 100;
const buckets = Math.ceil((schedule.totalMs + 30_000) / BUCKET_MS);
const counts = {
  /** Requests received, by arrival. */
  received: new Uint32Array(buckets),
  /** Answered 200, by answer time. */
  ok: new Uint32Array(buckets),
  /** Answered 500 or 503, by answer time. */
  failed: new Uint32Array(buckets),
  /** Services that ended after their client had gone, by end time. */
  servedGone: new Uint32Array(buckets),
  /** Longest queue seen in the bucket. */
  queueMax: new Uint32Array(buckets),
};
let t0 = Infinity;
let hung = 0;
const bucketOf = (t) => Math.min(buckets - 1, Math.max(0, Math.floor((t - t0) / BUCKET_MS)));

// FIFO with a moving head; compacted now and then so it stays O(1) per request.
let queue = [];
let head = 0;
let busy = 0;
const slotsAt = (t) => (behaviourAt(schedule.spans, t - t0) === 'capacity' ? faults.degradedSlots : upstream.slots);
const queued = () => queue.length - head;

function answer(job, status) {
  const b = bucketOf(now());
  if (status === 200) counts.ok[b]++;
  else counts.failed[b]++;
  if (job.res.destroyed) return;
  job.res.writeHead(status, { 'content-type': 'text/plain' });
  job.res.end(status === 200 ? 'ok' : 'error');
}

function pump() {
  while (busy < slotsAt(now()) && queued() > 0) {
    const job = queue[head];
    queue[head++] = undefined;
    busy++;
    const ms = upstream.serviceMinMs + (upstream.serviceMaxMs - upstream.serviceMinMs) * serviceRandom();
    setTimeout(() => finish(job), ms);
  }
  if (head > 1024 && head * 2 > queue.length) {
    queue = queue.slice(head);
    head = 0;
  }
}

function finish(job) {
  busy--;
  const t = now();
  if (job.res.destroyed) counts.servedGone[bucketOf(t)]++;
  if (job.kind === 'errors' && job.fails) answer(job, 500);
  else if (job.kind === 'latency') setTimeout(() => answer(job, 200), Math.max(0, job.arrived + faults.latencyMs - t));
  else answer(job, 200);
  pump();
}

const server = createServer((req, res) => {
  const t = now();
  const kind = behaviourAt(schedule.spans, t - t0);
  counts.received[bucketOf(t)]++;
  req.resume();
  if (kind === 'outage') {
    answer({ res }, 503);
    return;
  }
  if (kind === 'hang') {
    hung++;
    return;
  }
  // Drawn for every request in the errors fault, so the share is exact in expectation.
  const fails = kind === 'errors' ? errorRandom() < faults.errorRate : false;
  queue.push({ res, arrived: t, kind, fails });
  const b = bucketOf(t);
  if (queued() > counts.queueMax[b]) counts.queueMax[b] = queued();
  pump();
});
server.keepAliveTimeout = 60_000;
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const eld = loopDelay();
await tell({ type: 'ready', port: server.address().port });

t0 = (await next('start')).t0;
eld.start(t0, setup.measureFrom);
// The capacity comes back at a span's end with nobody arriving to notice: pump then.
for (const s of schedule.spans) setTimeout(pump, Math.max(0, t0 + s.to - now()));

await next('stop');
await tell({
  type: 'stats',
  bucketMs: BUCKET_MS,
  counts: Object.fromEntries(Object.entries(counts).map(([k, v]) => [k, Array.from(v)])),
  hung,
  queuedAtStop: queued(),
  busyAtStop: busy,
  loopDelay: eld.stop(),
});
