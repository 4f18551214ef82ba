import type { LooseEvent } from '../shared/observed.js';

/** The level a line is logged at. */
export type LogLevel = 'info' | 'warn' | 'error';

/** One log line: level, structured fields and message. */
export interface LogLine {
  readonly level: LogLevel;
  readonly fields: Record<string, unknown>;
  readonly msg: string;
}

const num = (v: unknown): string => (typeof v === 'number' ? String(Math.round(v * 1000) / 1000) : String(v));

const LOGGED: ReadonlySet<string> = new Set(['stateChange', 'rejected', 'limitRejected', 'concurrencyRejected', 'retry', 'giveUp', 'timeout', 'fallbackFailed']);

/** True for the kinds of event that get a line (not outcomes, successes, cache hits...). */
export function isLogged(type: string): boolean {
  return LOGGED.has(type);
}

/** Every field of the event, `type` as `event` and a thrown value under `err` (where pino's serializer looks). */
function fieldsOf(e: LooseEvent): Record<string, unknown> {
  const fields: Record<string, unknown> = { event: e.type };
  for (const k in e) {
    if (k === 'type') continue;
    if (k === 'error') {
      if (e[k] !== undefined) fields['err'] = e[k];
    } else fields[k] = e[k];
  }
  return fields;
}

/** The line for `e`, or `undefined` when its kind gets none (see {@link isLogged}). */
export function lineFor(e: LooseEvent): LogLine | undefined {
  const p = e.policy;
  switch (e.type) {
    case 'stateChange': {
      const figure = e['figure'] === undefined ? '' : ` (${String(e['reason'])} ${num(e['figure'])})`;
      return { level: e['to'] === 'open' ? 'warn' : 'info', fields: fieldsOf(e), msg: `${p}: breaker ${String(e['from'])} -> ${String(e['to'])}${figure}` };
    }
    case 'rejected':
    case 'limitRejected':
    case 'concurrencyRejected':
      return { level: 'warn', fields: fieldsOf(e), msg: `${p}: call rejected${e['state'] === undefined ? '' : ` (${String(e['state'])})`}` };
    case 'retry':
      return { level: 'info', fields: fieldsOf(e), msg: `${p}: retrying, attempt ${num(e['attempt'])} in ${num(e['delayMs'])} ms` };
    case 'giveUp': {
      // Not retrying what must not be retried (a shed call, a caller's abort) is no give-up worth an error.
      const level = e['reason'] === 'notHandled' || e['reason'] === 'cancelled' ? 'info' : 'error';
      return { level, fields: fieldsOf(e), msg: `${p}: gave up after ${num(e['attempts'])} attempts (${String(e['reason'])})` };
    }
    case 'timeout':
      return { level: 'warn', fields: fieldsOf(e), msg: `${p}: timed out after ${num(e['timeoutMs'])} ms` };
    case 'fallbackFailed':
      return { level: 'error', fields: fieldsOf(e), msg: `${p}: every fallback handler failed` };
    default:
      return undefined;
  }
}
