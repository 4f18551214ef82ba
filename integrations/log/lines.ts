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

/**
 * The line for `e`, or `undefined` for events not worth a line (outcomes,
 * successes, cache hits...). Every field of the event is kept; a thrown value
 * goes under `err`, where pino's serializer looks for it.
 */
export function lineFor(e: LooseEvent): LogLine | undefined {
  const { error, ...rest } = e;
  const fields: Record<string, unknown> = { ...rest, event: e.type };
  delete fields['type'];
  if (error !== undefined) fields['err'] = error;
  const p = e.policy;
  switch (e.type) {
    case 'stateChange': {
      const figure = e['figure'] === undefined ? '' : ` (${String(e['reason'])} ${num(e['figure'])})`;
      return { level: e['to'] === 'open' ? 'warn' : 'info', fields, msg: `${p}: breaker ${String(e['from'])} -> ${String(e['to'])}${figure}` };
    }
    case 'rejected':
      return { level: 'warn', fields, msg: `${p}: call rejected${e['state'] === undefined ? '' : ` (${String(e['state'])})`}` };
    case 'retry':
      return { level: 'info', fields, msg: `${p}: retrying, attempt ${num(e['attempt'])} in ${num(e['delayMs'])} ms` };
    case 'giveUp': {
      // Not retrying what must not be retried (a shed call, a caller's abort) is no give-up worth an error.
      const level = e['reason'] === 'notHandled' || e['reason'] === 'cancelled' ? 'info' : 'error';
      return { level, fields, msg: `${p}: gave up after ${num(e['attempts'])} attempts (${String(e['reason'])})` };
    }
    case 'timeout':
      return { level: 'warn', fields, msg: `${p}: timed out after ${num(e['timeoutMs'])} ms` };
    case 'fallbackFailed':
      return { level: 'error', fields, msg: `${p}: every fallback handler failed` };
    default:
      return undefined;
  }
}
