// One run of one variant under one scenario: start C, B and A (C and B on
// free loopback ports), start them together at t0, wait for
// A's last request to settle, collect the counts, stop all three by PID.
import { loadavg } from 'node:os';
import { now } from './child.mjs';
import { Child } from './processes.mjs';
import { scheduleOf } from './scenarios.mjs';

const READY_MS = 15_000;
/** Slack after the start for the children to get t0 before it passes. */
const START_DELAY_MS = 500;

/** Runs `variant` under `scenario` with `settings` (`onStart` gets the PIDs once all three are ready); resolves with the raw figures of A, B and C. */
export async function runOne(variant, scenario, settings, onStart = () => {}) {
  const schedule = scheduleOf(scenario, settings);
  const budgetMs = READY_MS * 3 + START_DELAY_MS + schedule.totalMs + settings.clientTimeoutMs + 30_000;
  const deadline = Date.now() + budgetMs;
  const children = [];
  const load = [loadavg()];
  const startedAt = new Date().toISOString();
  try {
    // All three start at once (importing the libraries is most of a start);
    // each learns the ports it needs with the start message.
    const c = new Child('upstream', './upstream.mjs', { deadline, schedule, seed: settings.seed, measureFrom: schedule.warmupMs });
    const b = new Child('service', './service.mjs', { deadline, variant, totalMs: schedule.totalMs, measureFrom: schedule.warmupMs });
    const a = new Child('generator', './generator.mjs', { deadline, measureFrom: schedule.warmupMs, rate: settings.rate, totalMs: schedule.totalMs, clientTimeoutMs: settings.clientTimeoutMs });
    children.push(c, b, a);
    const [{ port: upstreamPort }, { port: servicePort }] = await Promise.all([c, b, a].map((x) => x.waitFor('ready', READY_MS)));

    onStart(Object.fromEntries(children.map((x) => [x.role, x.pid])));
    const t0 = now() + START_DELAY_MS;
    for (const child of children) child.send({ type: 'start', t0, upstreamPort, servicePort });
    const generator = await a.waitFor('done', START_DELAY_MS + schedule.totalMs + settings.clientTimeoutMs + 20_000);
    const [service, upstream] = await Promise.all([b, c].map((child) => {
      const stats = child.waitFor('stats', 10_000);
      child.send({ type: 'stop' });
      return stats;
    }));
    load.push(loadavg());
    return { variant, scenario, startedAt, schedule, loadavg: load, pids: Object.fromEntries(children.map((x) => [x.role, x.pid])), generator, service, upstream };
  } finally {
    await Promise.all(children.map((child) => child.stop()));
  }
}
