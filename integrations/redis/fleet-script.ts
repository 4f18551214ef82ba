import type { BreakerState } from '../../policies/breaker/events.js';
import { LuaScript } from './script.js';

/**
 * One exchange, atomic, in one round trip. KEYS[1]: the fleet's hash,
 * instance id → `written|seq|sick|fleetOpen|state`, `written` by Redis's
 * clock (TIME). ARGV: this instance's id, its summary
 * (`seq|sick|fleetOpen|state`), staleMs, the hash's TTL (ms). Writes the
 * summary, drops every one older than staleMs (or unreadable), and replies
 * with the rest as id, `age|seq|sick|fleetOpen|state` pairs.
 */
export const exchangeScript = new LuaScript(`local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local stale = tonumber(ARGV[3])
redis.call('HSET', KEYS[1], ARGV[1], string.format('%.0f', now) .. '|' .. ARGV[2])
local all = redis.call('HGETALL', KEYS[1])
local out = {}
for i = 1, #all, 2 do
  local bar = string.find(all[i + 1], '|', 1, true)
  local at = bar and tonumber(string.sub(all[i + 1], 1, bar - 1))
  if at == nil or now - at > stale then
    redis.call('HDEL', KEYS[1], all[i])
  else
    table.insert(out, all[i])
    table.insert(out, string.format('%.0f', math.max(0, now - at)) .. string.sub(all[i + 1], bar))
  end
end
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return out`);
/** Removes instance ARGV[1]'s summary from the fleet's hash KEYS[1]. */
export const leaveScript = new LuaScript(`return redis.call('HDEL', KEYS[1], ARGV[1])`);

/** What an instance publishes each `summaryMs`. */
export interface Summary {
  /** New with each summary of the instance (a per-handle nonce and a count): the same `seq` read twice is the same summary. */
  readonly seq: string;
  /** Its own breaker was open or half-open since its previous summary. */
  readonly sick: boolean;
  /** The fleet held its breaker open as it wrote the summary. */
  readonly fleetOpen: boolean;
  /** Its breaker's state as it wrote the summary. */
  readonly state: BreakerState;
}

/** A summary as the exchange script returns it, with its age by Redis's clock. */
export interface ReadSummary extends Summary {
  readonly ageMs: number;
}

const STATES: readonly string[] = ['closed', 'open', 'half-open'];

/** The summary as the exchange script takes it: `seq|sick|fleetOpen|state`. */
export function writeSummary(s: Summary): string {
  return `${s.seq}|${s.sick ? 1 : 0}|${s.fleetOpen ? 1 : 0}|${s.state}`;
}

/**
 * The exchange script's reply as instance id → summary; an entry it cannot
 * read (another version's format) is left out, as if that instance were gone.
 */
export function readSummaries(reply: unknown): Map<string, ReadSummary> {
  const out = new Map<string, ReadSummary>();
  if (!Array.isArray(reply)) throw new TypeError(`unexpected reply to the fleet exchange: ${String(reply)}`);
  for (let i = 0; i + 1 < reply.length; i += 2) {
    const [age, seq, sick, fleetOpen, state] = String(reply[i + 1]).split('|');
    const ageMs = Number(age);
    if (!Number.isFinite(ageMs) || seq === undefined || seq === '' || state === undefined || !STATES.includes(state)) continue;
    out.set(String(reply[i]), { seq, sick: sick === '1', fleetOpen: fleetOpen === '1', state: state as BreakerState, ageMs });
  }
  return out;
}
