// Span events on the caller's trace: resilientFetch under timeout, retry, a
// breaker and a fallback, against a local server that hangs, then fails, then
// goes down. Each checkout is one span; breakwater adds what its policies did.
// Run: npm run build && node examples/tracing.mjs
import { createServer } from 'node:http';
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { constant, policy, resilientFetch } from 'breakwater';
import { registerOtelTracing } from 'breakwater/otel';

context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
const exporter = new InMemorySpanExporter();
const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer('checkout');

// /flaky: its first request hangs, the second answers 503, the third 200; /down always answers 500
let requests = 0;
let flaky = 0;
const server = createServer((req, res) => {
  requests++;
  if (req.url === '/flaky' && ++flaky === 1) return; // hangs: the timeout ends it
  res.writeHead(req.url === '/flaky' ? (flaky === 2 ? 503 : 200) : req.url === '/down' ? 500 : 204);
  res.end();
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${server.address().port}`;
await fetch(`${base}/warm-up`); // loads fetch itself before the first timed call

const payments = policy()
  .timeout({ ms: 1_000, name: 'pay-timeout' })
  .retry({ name: 'pay-retry', maxAttempts: 3, backoff: constant(10) })
  .circuitBreaker({ name: 'pay-breaker', trip: 'consecutiveFailures', threshold: 2, openMs: 60_000 })
  .fallback(() => new Response(null, { status: 202 }), { name: 'pay-fallback' });
const handle = registerOtelTracing(payments);
const http = resilientFetch(payments);

const paths = ['/flaky', '/down', '/down', '/down'];
for (let i = 0; i < paths.length; i++) {
  await tracer.startActiveSpan(`checkout ${i + 1} ${paths[i]}`, async (span) => {
    const res = await http(base + paths[i]);
    span.setAttribute('http.response.status_code', res.status);
    span.end();
  });
}
handle.dispose();
server.closeAllConnections();
server.close();

// one line per span, then one per event: its name and attributes (numbers to 3 significant digits)
const show = (v) => (typeof v === 'number' ? Number(v.toPrecision(3)) : v);
for (const span of exporter.getFinishedSpans()) {
  console.log(`${span.name} -> ${span.attributes['http.response.status_code']}`);
  for (const e of span.events) {
    const attrs = Object.entries(e.attributes ?? {}).filter(([k]) => k !== 'breakwater.policy.name');
    console.log(`  ${e.name} ${attrs.map(([k, v]) => `${k}=${show(v)}`).join(' ')}`);
  }
}
if (requests !== 10 || exporter.getFinishedSpans().length !== 4) process.exit(1);
