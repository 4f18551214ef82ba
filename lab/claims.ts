import { MODEL, SCENARIO_NAMES, type ScenarioName } from './model.js';
import type { Claim, Op, Rule } from './predicates.js';
import { BOUNDED_TOTAL_MS, type RowName } from './rows.js';
import type { Metric } from './seeds.js';

const ALL = SCENARIO_NAMES;
const MEDIAN: Rule = { over: 'median' };
const EVERY_SEED: Rule = { over: 'seeds', share: 1 };
/** Most seeds: for claims about a typical run where a rare seed may go the other way (the bimodality flag shows it). */
const MOST_SEEDS: Rule = { over: 'seeds', share: 0.9 };

const claim = (
  strategy: RowName,
  what: string,
  text: string,
  scenarios: readonly ScenarioName[],
  metric: Metric,
  op: Op,
  bound: number,
  rule: Rule = MEDIAN,
  extra: Partial<Pick<Claim, 'relativeTo' | 'needs'>> = {},
): Claim => ({ id: `${strategy}.${what}`, strategy, text, scenarios, metric, op, bound, rule, ...extra });

/**
 * Every claim of docs/strategies.md as a predicate over the lab's figures (lab/predicates.ts says how each is
 * judged across seeds). The texts are the docs' words; docs/strategies.md's claims table is generated from this
 * list, and the lab step of CI fails when one of them does not pass on the published figures. A claim the lab
 * cannot check yet names the scenario it `needs` (issue "The lab as evidence", item 3): adding that scenario to
 * lab/model.ts and the claim's `scenarios` makes it checked.
 */
export const CLAIMS: readonly Claim[] = [
  claim('naiveRetry', 'amplifies', 'the anti-pattern multiplies the load on a dependency that is down (≥ 2 attempts per request)', ['hardOutage'], 'amplification', '>=', 2),
  claim(
    'naiveRetry',
    'metastable',
    'the anti-pattern does not recover after a capacity drop once the trigger is gone (metastable failure)',
    ['capacityDrop'],
    'recoveryS',
    '>=',
    Infinity,
    MOST_SEEDS,
  ),
  claim(
    'failFast',
    'threads',
    "a slow dependency does not pile up callers: B's threads are never all held",
    ['latency', 'capacityDrop'],
    'peakInFlight',
    '<',
    MODEL.inFlightLimit,
  ),
  claim(
    'boundedRetry',
    'bounded',
    `the caller never waits past totalTimeoutMs (${BOUNDED_TOTAL_MS} ms in the lab, + the lab clock's 1 ms slot)`,
    ALL,
    'p99Ms',
    '<=',
    BOUNDED_TOTAL_MS + 1,
    EVERY_SEED,
  ),
  claim(
    'boundedRetry',
    'threads',
    "its backoff holds B's threads while it sleeps: in a hard outage its peak B is above naiveRetry's, which retries fast errors at once",
    ['hardOutage'],
    'peakInFlight',
    '>',
    0,
    MEDIAN,
    { relativeTo: 'naiveRetry' },
  ),
  claim('budgetedRetry', 'load', "an outage cannot triple the load on the dependency: C's load ≤ 1.2 attempts per request", ALL, 'amplification', '<=', 1.2),
  claim('standard', 'answers', 'the fallback answers whatever is left: ≥ 99 % of requests answered', ALL, 'answered', '>=', 0.99),
  claim(
    'standard',
    'real-answers',
    "the default costs no real answers against no protection: real answers at least the baseline's less 1 point",
    ALL,
    'realSuccess',
    '>=',
    -0.01,
    MEDIAN,
    { relativeTo: 'baseline' },
  ),
  claim('standard', 'sheds', "the breaker opens while the dependency is down: C's load ≤ 0.3 attempts per request", ['hardOutage'], 'amplification', '<=', 0.3),
  claim('guardedRetry', 'recovers', 'never an unbounded recovery: back to 99 % real answers within the run', ALL, 'recoveryS', '<', Infinity, EVERY_SEED),
  claim('guardedRetry', 'no-retry-storm', "a retry never goes into an open circuit: C's load ≤ 0.5 attempts per request while it is down", ['hardOutage'], 'amplification', '<=', 0.5),
  claim('slowCallShield', 'stale', 'when the breaker trips on slow calls, callers get the last good value: ≥ 99 % answered', ['latency'], 'answered', '>=', 0.99),
  claim('errorCountTrip', 'degrades', 'silent degradation to a default value: ≥ 99 % answered when the dependency fails fast', ['hardOutage', 'errors', 'flapping'], 'answered', '>=', 0.99),
  claim(
    'errorCountTrip',
    'partial-errors',
    'not for partial errors: at 30 % errors five failures in a row come often, so it is open most of the fault',
    ['errors'],
    'breakerOpenInFault',
    '>=',
    0.5,
  ),
  claim(
    'errorCountTrip',
    'partial-errors-cost',
    "not for partial errors: its real answers fall below the baseline's",
    ['errors'],
    'realSuccess',
    '<',
    0,
    MEDIAN,
    { relativeTo: 'baseline' },
  ),
  claim('idempotentRetry', 'once', 'the operation runs once per key, even when retried or sent twice', [], 'answered', '>=', 0, MEDIAN, {
    needs: 'duplicate submits with a side-effect counter',
  }),
  claim('writeBehind', 'no-failed-request', 'a sick dependency costs no failed request: ≥ 99 % answered (delivered or queued)', ALL, 'answered', '>=', 0.99),
  claim('writeBehind', 'drains', 'the queued writes are delivered once the dependency is back', [], 'answered', '>=', 0, MEDIAN, {
    needs: 'write-behind backlog, drain time and duplicates',
  }),
  claim('fallbackChain', 'answers', 'the last good value, then the default: ≥ 99 % answered', ALL, 'answered', '>=', 0.99),
  claim('fallbackChain', 'secondary', 'a secondary source answers before the default', [], 'answered', '>=', 0, MEDIAN, {
    needs: 'a secondary source and the age of stale answers',
  }),
  claim('layeredBreakers', 'answers', 'the fallback answers what the breakers shed: ≥ 99 % answered', ALL, 'answered', '>=', 0.99),
  claim('layeredBreakers', 'isolation', 'one sick method is shed alone, the service stays up', [], 'answered', '>=', 0, MEDIAN, {
    needs: 'two methods with one sick',
  }),
  claim('adaptiveDegrade', 'sheds', "a service that sheds its own load: B's threads are never all held", ALL, 'peakInFlight', '<', MODEL.inFlightLimit),
  claim('adaptiveDegrade', 'answers', 'a degraded answer rather than an error: ≥ 99 % answered', ALL, 'answered', '>=', 0.99),
];
