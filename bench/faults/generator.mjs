// The open-loop generator A: request i is due at t0 + i / rate, whatever
// happened to the earlier ones (a closed loop would slow down with the
// service and hide overload). A sends each request when due (at once if it
// fell behind), measures its latency from the due time, and gives up on it
// `clientTimeoutMs` after the due time. Outcomes: real, fallback, error
// (any status but 200, or a socket error), timeout.
import { Agent, request } from 'node:http';
import { asChild, loopDelay, next, now, tell } from './child.mjs';
import { OUTCOMES } from './outcomes.mjs';

const code = Object.fromEntries(OUTCOMES.map((o, i) => [o, i]));

const setup = await asChild();
const { rate, totalMs, clientTimeoutMs } = setup;
let servicePort;
const n = Math.floor((totalMs * rate) / 1000);
const outcome = new Uint8Array(n);
const latencyMs = new Float64Array(n);
/** How late A sent each request, from its due time: A's own lag, not the service's. */
const sendLagMs = new Float64Array(n);
const agent = new Agent({ keepAlive: true });
let settled = 0;
let done;
const allSettled = new Promise((resolve) => (done = resolve));

function settle(i, result, t) {
  if (outcome[i] !== 0) return false;
  outcome[i] = code[result];
  latencyMs[i] = t - due(i);
  if (++settled === n) done();
  return true;
}

let t0 = Infinity;
const due = (i) => t0 + (i * 1000) / rate;

function send(i) {
  const t = now();
  sendLagMs[i] = t - due(i);
  const req = request({ host: '127.0.0.1', port: servicePort, path: `/?i=${i}`, agent }, (res) => {
    let body = '';
    res.setEncoding('utf8');
    res.on('data', (chunk) => (body += chunk));
    res.on('end', () => {
      const result = res.statusCode === 200 && (body === 'real' || body === 'fallback') ? body : 'error';
      if (settle(i, result, now())) clearTimeout(timer);
    });
    res.on('error', () => settle(i, 'error', now()));
  });
  req.on('error', () => {
    if (settle(i, 'error', now())) clearTimeout(timer);
  });
  const timer = setTimeout(() => {
    if (settle(i, 'timeout', now())) req.destroy();
  }, Math.max(0, due(i) + clientTimeoutMs - now()));
  req.end();
}

let sent = 0;
function tick() {
  const t = now();
  while (sent < n && due(sent) <= t) send(sent++);
  if (sent < n) setTimeout(tick, Math.max(0, due(sent) - now()));
}

const eld = loopDelay();
await tell({ type: 'ready' });
({ t0, servicePort } = await next('start'));
eld.start(t0, setup.measureFrom);
setTimeout(tick, Math.max(0, t0 - now()));
if (n === 0) done();
await allSettled;
agent.destroy();
await tell({ type: 'done', rate, t0, outcome, latencyMs, sendLagMs, loopDelay: eld.stop() });
await next('stop');
