// resilientFetch with the `standard` strategy against a flaky local server:
// 503s with Retry-After are retried after the hinted delay, the rest answered
// from the fallback. Run: npm run build && node examples/fetch-standard.mjs
import { createServer } from 'node:http';
import { resilientFetch, strategies } from 'breakwater';

let requests = 0;
const server = createServer((req, res) => {
  requests++;
  // every third request fails with a 503 asking to come back in 50 ms
  if (requests % 3 === 0) {
    res.writeHead(503, { 'retry-after': '0.05' });
    res.end('busy');
    return;
  }
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ request: requests }));
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${server.address().port}/users`;

const http = resilientFetch(
  strategies.standard({
    timeoutMs: 500,
    maxAttempts: 2,
    fallback: () => Response.json({ stale: true }),
  }),
);

let fresh = 0;
let stale = 0;
for (let i = 0; i < 20; i++) {
  const body = await (await http(url)).json();
  if (body.stale) stale++;
  else fresh++;
}
server.close();
console.log(`fetch + standard: ${fresh} fresh answers, ${stale} from the fallback, ${requests} requests to the server`);
if (fresh + stale !== 20 || fresh < 15) process.exit(1);
