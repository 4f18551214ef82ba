// The service B: node:http on loopback; each request from A makes one call to
// C through the variant's chain over a keep-alive agent, and B answers 200
// `real` or `fallback`, or 502 `error` when the chain rejects. B's event-loop
// delay is measured for the whole run and per second.
import { Agent, createServer, request } from 'node:http';
import { asChild, loopDelay, next, now, tell } from './child.mjs';
import { makeVariant, REAL } from './variants.mjs';

const setup = await asChild();
const agent = new Agent({ keepAlive: true });

class UpstreamError extends Error {
  constructor(status) {
    super(`upstream answered ${status}`);
    this.status = status;
  }
}

/** One call to C: resolves `REAL` on a 200, rejects on any other status, a socket error or `signal`'s abort. */
function callC(signal) {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: upstreamPort, path: '/', agent, signal }, (res) => {
      res.on('error', reject);
      res.on('close', () => res.complete || reject(new Error('upstream answer cut off')));
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve(REAL) : reject(new UpstreamError(res.statusCode))));
    });
    req.on('error', reject);
    req.end();
  });
}

const call = makeVariant(setup.variant, callC);
let t0 = Infinity;
let upstreamPort;
const seconds = Math.ceil((setup.totalMs + 30_000) / 1000);
const counts = {
  received: new Uint32Array(seconds),
  real: new Uint32Array(seconds),
  fallback: new Uint32Array(seconds),
  error: new Uint32Array(seconds),
  inFlightMax: new Uint32Array(seconds),
};
const secondOf = (t) => Math.min(seconds - 1, Math.max(0, Math.floor((t - t0) / 1000)));
let inFlight = 0;
const errors = new Map();

const server = createServer((req, res) => {
  req.resume();
  counts.received[secondOf(now())]++;
  inFlight++;
  const s = secondOf(now());
  if (inFlight > counts.inFlightMax[s]) counts.inFlightMax[s] = inFlight;
  call().then(
    (value) => reply(res, 200, value),
    (error) => {
      const name = error?.code ?? error?.name ?? 'unknown';
      errors.set(name, (errors.get(name) ?? 0) + 1);
      reply(res, 502, 'error');
    },
  );
});

function reply(res, status, body) {
  inFlight--;
  counts[body === 'error' ? 'error' : body][secondOf(now())]++;
  if (res.destroyed) return;
  res.writeHead(status, { 'content-type': 'text/plain' });
  res.end(body);
}

server.keepAliveTimeout = 60_000;
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const eld = loopDelay();
await tell({ type: 'ready', port: server.address().port });
({ t0, upstreamPort } = await next('start'));
eld.start(t0, setup.measureFrom);
await next('stop');
await tell({
  type: 'stats',
  counts: Object.fromEntries(Object.entries(counts).map(([k, v]) => [k, Array.from(v)])),
  inFlightAtStop: inFlight,
  errors: Object.fromEntries(errors),
  loopDelay: eld.stop(),
});
