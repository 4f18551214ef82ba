import type { Clock } from '../lib/clock.js';
import type { ExecutionContext } from '../lib/policy.js';
import { MODEL, type Scenario } from './model.js';
import type { Model } from './override.js';

/**
 * What C answers on success: fresh plain data per job (so idempotent stores
 * and caches can keep it), stamped with the time C finished it. A request got
 * a real answer when it received one made after it arrived: a cached (stale)
 * copy of an earlier one is a degraded answer.
 */
export interface Answer {
  readonly from: 'C';
  /** Time C finished the job, ms since the start of the run. */
  readonly at: number;
}

/** True when `value` is an answer of C made at or after `since` (ms since the start of the run). */
export function isFreshAnswer(value: unknown, since: number): boolean {
  return typeof value === 'object' && value !== null && (value as Answer).from === 'C' && (value as Answer).at >= since;
}

/** C's answer while it is down: refused at once (connection refused, 503). */
export class DependencyDownError extends Error {
  override readonly name = 'DependencyDownError';
}
/** C's answer when its queue is full. */
export class QueueFullError extends Error {
  override readonly name = 'QueueFullError';
}
/** C failed the job after working on it (the 30 % errors scenario). */
export class DependencyError extends Error {
  override readonly name = 'DependencyError';
}

const DOWN = new DependencyDownError('C is down');
const FULL = new QueueFullError('C queue full');
const FAILED = new DependencyError('C failed');

/** What the simulation wants to hear about C's work. */
export interface DependencyProbe {
  /** An attempt reached C at `t` (refused ones included). */
  onAttempt(t: number): void;
  /** An attempt at C settled for its caller: `ok` for a real answer. */
  onAttemptSettled(t: number, ok: boolean): void;
  /** C finished a job whose caller had already given up (wasted work). */
  onWasted(t: number): void;
}

/** One request inside C. It listens to its caller's signal as a real client would. */
class Job {
  abandoned = false;
  settled = false;
  constructor(
    readonly c: Dependency,
    readonly signal: AbortSignal,
    readonly resolve: (v: unknown) => void,
    readonly reject: (e: unknown) => void,
  ) {}

  /** The caller gave up: stop waiting (B's slot is freed), but C keeps the job. */
  handleEvent(): void {
    if (this.settled) return;
    this.abandoned = true;
    this.settled = true;
    this.c.settled(false);
    this.reject(this.signal.reason);
  }
}

/**
 * Dependency C: `workers(t)` concurrent workers with exponential service
 * times, a FIFO queue of {@link MODEL.queueLimit} (or the run's model's), and no way to tell that a
 * caller went away once the request has reached it: an abandoned job is still
 * worked on when its turn comes (wasted work). Latency grows under load
 * through the queue: a job waits for every job ahead of it, wanted or not.
 */
export class Dependency {
  private readonly queue: (Job | undefined)[] = [];
  private head = 0;
  private busy = 0;
  private readonly okSlots = new Float64Array(10);
  private readonly allSlots = new Float64Array(10);
  private readonly slotEpoch = new Float64Array(10).fill(-1);
  /** Jobs held (queued + in service), for the report. */
  get held(): number {
    return this.busy + this.queue.length - this.head;
  }
  /** The operation B calls: `(ctx) => dependency.call(ctx)`, made once. */
  readonly op = (ctx: ExecutionContext): Promise<unknown> => this.call(ctx);

  constructor(
    readonly clock: Clock,
    private readonly random: () => number,
    private readonly scenario: Scenario,
    readonly probe: DependencyProbe,
    private readonly t0: number,
    private readonly model: Pick<Model, 'queueLimit' | 'serviceMeanMs'> = MODEL,
  ) {
    for (const at of scenario.changesAt) clock.setTimeout(() => this.pump(), at);
  }

  /** Counts a settled attempt for {@link health}. */
  noteSettled(t: number, ok: boolean): void {
    const epoch = Math.floor(t / 100);
    const i = epoch % 10;
    if (this.slotEpoch[i] !== epoch) {
      this.slotEpoch[i] = epoch;
      this.okSlots[i] = 0;
      this.allSlots[i] = 0;
    }
    this.allSlots[i]!++;
    if (ok) this.okSlots[i]!++;
  }

  /** Share of attempts C answered over the last second (1 with none): what a client-side health signal sees. */
  health(): number {
    const epoch = Math.floor((this.clock.now() - this.t0) / 100);
    let ok = 0;
    let all = 0;
    for (let i = 0; i < 10; i++) {
      if (this.slotEpoch[i]! <= epoch - 10) continue;
      ok += this.okSlots[i]!;
      all += this.allSlots[i]!;
    }
    return all === 0 ? 1 : ok / all;
  }

  /** One attempt at C, honouring `ctx.signal`. */
  call(ctx: ExecutionContext): Promise<unknown> {
    const t = this.clock.now() - this.t0;
    this.probe.onAttempt(t);
    if (this.scenario.down(t)) return this.refuse(DOWN);
    if (this.queue.length - this.head >= this.model.queueLimit) return this.refuse(FULL);
    const signal = ctx.signal;
    if (signal.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const job = new Job(this, signal, resolve, reject);
      signal.addEventListener('abort', job);
      this.queue.push(job);
      this.pump();
    });
  }

  /** @internal An attempt settled for its caller. */
  settled(ok: boolean): void {
    const t = this.clock.now() - this.t0;
    this.noteSettled(t, ok);
    this.probe.onAttemptSettled(t, ok);
  }

  private refuse(error: Error): Promise<never> {
    this.settled(false);
    return Promise.reject(error);
  }

  /** Starts queued jobs while workers are free. */
  private pump(): void {
    const t = this.clock.now() - this.t0;
    const workers = this.scenario.workers(t);
    while (this.busy < workers && this.head < this.queue.length) {
      const job = this.queue[this.head]!;
      this.queue[this.head++] = undefined;
      if (this.head > 4096 && this.head * 2 > this.queue.length) {
        this.queue.splice(0, this.head);
        this.head = 0;
      }
      this.busy++;
      const ms = -Math.log(1 - this.random()) * this.model.serviceMeanMs * this.scenario.slowdown(t);
      this.clock.setTimeout(() => this.finish(job), ms);
    }
  }

  private finish(job: Job): void {
    this.busy--;
    const t = this.clock.now() - this.t0;
    const failed = this.random() < this.scenario.errorRate(t);
    job.signal.removeEventListener('abort', job);
    if (job.abandoned) this.probe.onWasted(t);
    else if (!job.settled) {
      job.settled = true;
      this.settled(!failed);
      if (failed) job.reject(FAILED);
      else job.resolve({ from: 'C', at: t } satisfies Answer);
    }
    this.pump();
  }
}
