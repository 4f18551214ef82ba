import { systemClock, type Clock, type TimerHandle } from '../../lib/clock.js';
import { checkOptions } from '../../lib/options.js';
import { handleOf, type WatchHandle } from '../shared/handle.js';
import { loose, PolicyNames, type LooseEvent, type Observed } from '../shared/observed.js';
import { isLogged, lineFor } from './lines.js';
import { logEventsOptions, type LogEventsOptions } from './options.js';

/**
 * The logger {@link logEvents} writes to: pino's signature (`logger.warn(obj, msg)`),
 * which bunyan and many others share.
 */
export interface EventLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

interface Throttle {
  last: number;
  pending: LooseEvent | undefined;
  count: number;
  timer: TimerHandle;
}

/**
 * Writes a policy's (or a pipeline's) notable events as structured log lines:
 * breaker transitions (warn when opening, info otherwise), rejected calls
 * (warn), retries (info), give-ups (error), timeouts (warn) and failed
 * fallbacks (error) — go-zero's logBreaker, for every policy. Lines are
 * rate-limited per policy and kind of event: the first is written at once,
 * later ones within `rateLimitMs` are counted, and the last of them is
 * written when the interval ends with `suppressed: n` (how many of its kind
 * were not written), so the final state always reaches the log.
 *
 * @example
 * ```ts
 * import pino from 'pino';
 * const handle = logEvents(pipeline, pino(), { rateLimitMs: 5_000 });
 * // { level: 40, event: 'stateChange', policy: 'payments', from: 'closed', to: 'open', ... msg: 'payments: breaker closed -> open' }
 * handle.dispose();
 * ```
 */
export function logEvents(target: Observed, logger: EventLogger, options: LogEventsOptions = {}): WatchHandle {
  const o = checkOptions(logEventsOptions, options, 'logEvents');
  const clock: Clock = o.clock ?? systemClock;
  const every = o.rateLimitMs;
  const throttles = new Map<string, Throttle>();
  // A keyed breaker's breakers (`name:key`) share its throttles: one per key would grow without bound.
  const names = new PolicyNames(target);

  // Lines are built only when written: a suppressed event costs a counter bump.
  const write = (e: LooseEvent, suppressed: number): void => {
    const line = lineFor(e)!;
    if (suppressed > 0) line.fields['suppressed'] = suppressed;
    logger[line.level](line.fields, line.msg);
  };
  const flush = (t: Throttle): void => {
    t.timer = undefined;
    write(t.pending!, t.count - 1);
    t.pending = undefined;
    t.count = 0;
    t.last = clock.now();
  };

  const sub = target.events$.subscribe((event) => {
    const e = loose(event);
    if (!isLogged(e.type)) return;
    if (every === 0) return write(e, 0);
    const key = `${names.base(e.policy)}\u0000${e.type}`;
    const now = clock.now();
    let t = throttles.get(key);
    if (t === undefined) throttles.set(key, (t = { last: -Infinity, pending: undefined, count: 0, timer: undefined }));
    if (t.pending === undefined && now - t.last >= every) {
      t.last = now;
      return write(e, 0);
    }
    t.pending = e;
    t.count++;
    if (t.timer === undefined) {
      const due = t;
      t.timer = clock.setTimeout(() => flush(due), Math.max(0, t.last + every - now));
      (t.timer as { unref?: () => void } | undefined)?.unref?.();
    }
  });

  return handleOf(sub, () => {
    for (const t of throttles.values()) {
      if (t.timer === undefined) continue;
      clock.clearTimeout(t.timer);
      flush(t);
    }
    throttles.clear();
  });
}
