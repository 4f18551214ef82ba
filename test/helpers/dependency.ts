import { TimeoutError } from '../../lib/errors.js';
import type { TestClock } from '../../lib/testing.js';

/** What the simulator needs of a limiter: its synchronous permit API and its figures. */
export interface Limited {
  allow(): { success(): void; failure(error?: unknown): void; release(): void };
  readonly limit: number;
  readonly inFlight: number;
}

/**
 * A dependency in virtual time, as the fault benchmark's upstream: `slots`
 * calls served at once, each for a service time drawn by `service()`, the rest
 * waiting in an unbounded FIFO that also serves calls whose caller has given
 * up (a connection pool does). `latency` adds time to each answer without
 * holding a slot.
 */
export interface DependencyModel {
  /** Calls served at once (may change during a run). */
  slots: number;
  /** Service time of one call, in ms. */
  service: () => number;
  /** Added to each answer after its service, in ms, without holding a slot. */
  latency: number;
  /** The caller's deadline per call, in ms: a call not answered by then is a drop (a TimeoutError). */
  timeoutMs: number;
}

/** What one run of {@link simulate} saw. */
export interface Run {
  /** Calls offered, admitted, shed, answered in time, timed out. */
  offered: number;
  admitted: number;
  shed: number;
  answered: number;
  timedOut: number;
  /** For each admission: the limiter's in-flight count before it, and its limit then. */
  admissions: { before: number; limit: number }[];
  /** Rejections while the limiter had fewer calls in flight than its limit (must stay 0). */
  shedBelowLimit: number;
  /** The limit sampled every `sampleEveryMs`. */
  limits: number[];
}

type Event = { at: number; seq: number; fire: () => void; dead?: boolean };

/** A binary min-heap of events by time, then by order of scheduling. */
class Events {
  private heap: Event[] = [];
  private seq = 0;
  get size(): number {
    return this.heap.length;
  }
  /** Schedules `fire` at `at`, rounded up to a whole millisecond: events of one millisecond share one clock step. */
  push(at: number, fire: () => void): Event {
    const h = this.heap;
    const event: Event = { at: Math.ceil(at), seq: this.seq++, fire };
    h.push(event);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!before(h[i]!, h[p]!)) break;
      [h[i], h[p]] = [h[p]!, h[i]!];
      i = p;
    }
    return event;
  }
  pop(): Event | undefined {
    const h = this.heap;
    const top = h[0];
    const last = h.pop();
    if (h.length > 0 && last !== undefined) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && before(h[l]!, h[m]!)) m = l;
        if (r < h.length && before(h[r]!, h[m]!)) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m]!, h[i]!];
        i = m;
      }
    }
    return top;
  }
}
const before = (a: Event, b: Event): boolean => a.at < b.at || (a.at === b.at && a.seq < b.seq);

/**
 * Drives `limiter` through its permit API for `durationMs` of virtual time on
 * `clock`: calls arrive every `1000 / rate` ms (open loop: a shed call is
 * not retried), each admitted one is served by `model` and settled with
 * `success()` when answered within `timeoutMs`, else with
 * `failure(TimeoutError)` at its deadline. `phases` change the model at
 * given times. Time moves only through `clock.advance`, event by event; the
 * run returns when every admitted call has settled.
 */
export async function simulate(
  limiter: Limited,
  clock: TestClock,
  model: DependencyModel,
  options: { rate: number; durationMs: number; sampleEveryMs?: number; phases?: { at: number; apply: (m: DependencyModel) => void }[]; onSample?: () => void },
): Promise<Run> {
  const run: Run = { offered: 0, admitted: 0, shed: 0, answered: 0, timedOut: 0, admissions: [], shedBelowLimit: 0, limits: [] };
  const events = new Events();
  const t0 = clock.now();
  const end = t0 + options.durationMs;
  const queue: { arrived: number; answer: () => void }[] = [];
  let head = 0;
  let busy = 0;

  const pump = (): void => {
    while (busy < model.slots && head < queue.length) {
      const job = queue[head]!;
      queue[head++] = undefined as never;
      busy++;
      const done = clock.now() + model.service();
      events.push(done, () => {
        busy--;
        events.push(clock.now() + model.latency, job.answer);
        pump();
      });
    }
  };

  const arrive = (): void => {
    run.offered++;
    const before = limiter.inFlight;
    const limit = limiter.limit;
    let permit: ReturnType<Limited['allow']>;
    try {
      permit = limiter.allow();
    } catch {
      run.shed++;
      if (before < limit) run.shedBelowLimit++;
      return;
    }
    run.admitted++;
    run.admissions.push({ before, limit });
    let settled = false;
    const deadline = events.push(clock.now() + model.timeoutMs, () => {
      if (settled) return;
      settled = true;
      run.timedOut++;
      permit.failure(new TimeoutError('attempt'));
    });
    queue.push({
      arrived: clock.now(),
      answer: () => {
        if (settled) return;
        settled = true;
        // An answered call's deadline is no event: the clock must not run on to it.
        deadline.dead = true;
        run.answered++;
        permit.success();
      },
    });
    pump();
  };

  const gap = 1000 / options.rate;
  for (let t = t0; t < end; t += gap) events.push(t, arrive);
  // Samples and phases stop at `end`; the heap then drains the calls in flight.
  for (const p of options.phases ?? []) events.push(t0 + p.at, () => (p.apply(model), pump()));
  const every = options.sampleEveryMs ?? 100;
  for (let t = t0; t < end; t += every) events.push(t, () => (run.limits.push(limiter.limit), options.onSample?.()));

  // After `end` no call arrives, but those in flight still settle (by their deadline at the latest).
  for (;;) {
    const e = events.pop();
    if (e === undefined) break;
    if (e.dead) continue;
    if (e.at > clock.now()) await clock.advance(e.at - clock.now());
    e.fire();
  }
  return run;
}

/** A service time uniform in [min, max] ms from `random`. */
export const uniform = (random: () => number, min: number, max: number) => (): number => min + (max - min) * random();
