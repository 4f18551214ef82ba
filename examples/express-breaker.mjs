// An Express server with a server-side breaker per route (go-zero's breaker
// handler): while the handler fails with 500s the breaker opens and answers
// 503 with Retry-After without calling it; when the handler heals, it closes.
// Run: npm run build && node examples/express-breaker.mjs
import express from 'express';
import { circuitBreaker } from 'breakwater';
import { protectExpress } from 'breakwater/http';

let healthy = false;
let handled = 0;
const app = express();
app.get(
  '/orders/:id',
  protectExpress({
    sourceFor: (key) => circuitBreaker({ name: key, strategy: 'consecutiveFailures', threshold: 3, openMs: 200 }),
  }),
  (req, res) => {
    handled++;
    if (!healthy) return res.status(500).json({ error: 'database down' });
    res.json({ id: req.params.id });
  },
);
const server = app.listen(0, '127.0.0.1');
await new Promise((resolve) => server.once('listening', resolve));
const base = `http://127.0.0.1:${server.address().port}`;

const statuses = [];
for (let i = 0; i < 6; i++) statuses.push((await fetch(`${base}/orders/${i}`)).status);
console.log(`while sick: ${statuses.join(' ')} (handler ran ${handled} times)`);

healthy = true;
await new Promise((resolve) => setTimeout(resolve, 250)); // openMs passes
const after = [];
for (let i = 0; i < 3; i++) after.push((await fetch(`${base}/orders/${i}`)).status);
console.log(`after it heals: ${after.join(' ')}`);
server.close();
if (statuses.slice(0, 3).join() !== '500,500,500' || !statuses.slice(3).every((s) => s === 503) || after.join() !== '200,200,200') process.exit(1);
