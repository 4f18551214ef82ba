// The fault schedule of the fault benchmark. Every run is three phases,
// healthy, fault, after; a scenario says what the upstream C does during the
// fault, as spans relative to the fault's start, each with one behaviour.

/** The upstream's healthy shape: concurrent slots and service time (uniform in 20 ± 5 ms, spent on a timer). */
export const upstream = { slots: 32, serviceMinMs: 15, serviceMaxMs: 25 };

/** Parameters of the faults. */
export const faults = {
  /** `latency`: an answer leaves this long after its request arrived (or when its service ends, if later). */
  latencyMs: 800,
  /** `errors`: the share of requests answered 500 (after their service). */
  errorRate: 0.3,
  /** `capacity`: concurrent slots during the fault. */
  degradedSlots: 4,
  /** `flapping`: down for this long, then up for as long, from the fault's start. */
  flapMs: 2_000,
};

const whole = (kind) => (faultMs) => [{ from: 0, to: faultMs, kind }];

/**
 * Each scenario: its fault length (when not overridden), its spans, and one
 * line for the docs and the results. Kinds C knows: outage (503 at once),
 * hang (accepted, never answered), latency, errors, capacity.
 */
export const scenarios = {
  outage: { faultMs: 10_000, spans: whole('outage'), about: 'C answers 503 at once, 10 s' },
  'outage-12s': { faultMs: 12_000, spans: whole('outage'), about: 'C answers 503 at once, 12 s' },
  hanging: { faultMs: 10_000, spans: whole('hang'), about: 'C accepts and never answers (the socket stays open until the client closes it)' },
  latency: { faultMs: 10_000, spans: whole('latency'), about: `C's answers leave ${faults.latencyMs} ms after arrival; the slot is held only for the service time` },
  errors: { faultMs: 10_000, spans: whole('errors'), about: `${faults.errorRate * 100} % of requests, drawn independently, are answered 500 after their service` },
  capacity: { faultMs: 10_000, spans: whole('capacity'), about: `C's slots drop from ${upstream.slots} to ${faults.degradedSlots}` },
  flapping: {
    faultMs: 10_000,
    spans: (faultMs) => {
      const out = [];
      for (let t = 0; t < faultMs; t += 2 * faults.flapMs) out.push({ from: t, to: Math.min(t + faults.flapMs, faultMs), kind: 'outage' });
      return out;
    },
    about: `${faults.flapMs / 1000} s down (503 at once) / ${faults.flapMs / 1000} s up, starting down`,
  },
};

/** The scenarios of `--quick`. */
export const quickScenarios = ['outage', 'capacity'];

/**
 * The absolute schedule of one run, in ms from its start: a warm-up (the
 * processes' first connections and compilations; not measured, and at least
 * a breaker window before the fault), where the fault begins and ends, where
 * the run ends, and the fault's spans. `faultMs` overrides the scenario's
 * fault length (`outage-12s` keeps its 1.2 ratio).
 */
export function scheduleOf(name, { warmupMs = 0, healthyMs, afterMs, faultMs }) {
  const s = scenarios[name];
  if (s === undefined) throw new Error(`unknown scenario ${name}; known: ${Object.keys(scenarios).join(', ')}`);
  const length = faultMs === undefined ? s.faultMs : Math.round(name === 'outage-12s' ? faultMs * 1.2 : faultMs);
  const faultStart = warmupMs + healthyMs;
  const faultEnd = faultStart + length;
  return {
    scenario: name,
    warmupMs,
    healthyMs,
    faultMs: length,
    afterMs,
    faultStart,
    faultEnd,
    totalMs: faultEnd + afterMs,
    spans: s.spans(length).map((x) => ({ from: faultStart + x.from, to: faultStart + x.to, kind: x.kind })),
  };
}

/** What C does at `t` ms from the run's start: a span's kind, or `healthy`. */
export function behaviourAt(spans, t) {
  for (const s of spans) if (t >= s.from && t < s.to) return s.kind;
  return 'healthy';
}
