import type { IncomingMessage, ServerResponse } from 'node:http';
import { ConfigError } from '../../lib/errors.js';
import { healthReport } from '../../policies/breaker/health.js';

/** Options of {@link healthHandler}. */
export interface HealthHandlerOptions {
  /**
   * The HTTP status of a `degraded` report (a breaker sheds). Keep 200 where a load balancer reads the endpoint: an
   * open breaker means a dependency is sick, and pulling this instance would not heal it; 503 suits a dashboard or a
   * readiness probe that should see it.
   * @defaultValue 200
   */
  degradedStatus?: number | undefined;
}

/**
 * A node:http handler (Express takes it as is) that serves `healthReport(target)` as JSON, as Spring's actuator
 * serves resilience4j's breakers: `{ "status": "up" | "degraded", "breakers": [{ name, state, control, stats,
 * lastTransition }] }`, with status 200 (or `degradedStatus` when degraded), never cached. A `HEAD` gets the status
 * alone.
 *
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * import { policy } from 'breakwater';
 * import { healthHandler } from 'breakwater/http';
 * const payments = policy().retry({ maxAttempts: 3 }).breaker({ name: 'payments' });
 * const health = healthHandler(payments);
 * createServer((req, res) => (req.url === '/health/breakers' ? health(req, res) : res.end())).listen(0).unref();
 * ```
 */
export function healthHandler(target: { health(): unknown }, options: HealthHandlerOptions = {}): (req: IncomingMessage, res: ServerResponse) => void {
  const degradedStatus = options.degradedStatus ?? 200;
  if (!(Number.isInteger(degradedStatus) && degradedStatus >= 200 && degradedStatus <= 599)) {
    throw new ConfigError('healthHandler', [{ path: 'degradedStatus', message: `expected an HTTP status from 200 to 599, got ${String(degradedStatus)}` }]);
  }
  if (typeof (target as { health?: unknown } | null)?.health !== 'function') {
    throw new ConfigError('healthHandler', [{ path: 'target', message: 'expected a breaker, keyed breaker, registry or pipeline (something with health())' }]);
  }
  return (req, res) => {
    const report = healthReport(target);
    const body = JSON.stringify(report);
    res.writeHead(report.status === 'up' ? 200 : degradedStatus, {
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
      'content-length': Buffer.byteLength(body),
    });
    res.end(req.method === 'HEAD' ? undefined : body);
  };
}
