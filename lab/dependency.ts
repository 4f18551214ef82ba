import type { Clock } from '../lib/clock.js';
import { Context, Scope, type AbortListener } from '../lib/context.js';
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

/** What the replica of {@link replicaAnswer} answers: C's data as it was `lagMs` ago. */
export interface ReplicaAnswer {
  readonly from: 'replica';
  /** The time the data is from, ms since the start of the run. */
  readonly at: number;
}

/** The secondary source of the lab: a read replica of C, healthy whatever C's fault, that answers in 10 ms with data 2 s old. */
export const REPLICA = Object.freeze({ delayMs: 10, lagMs: 2_000 });

/** A read of the replica ({@link REPLICA}) on `clock`; `t0` is the run's start. */
export function replicaAnswer(clock: Clock, t0: number): Promise<ReplicaAnswer> {
  return new Promise((resolve) => clock.setTimeout(() => resolve({ from: 'replica', at: clock.now() - t0 - REPLICA.lagMs }), REPLICA.delayMs));
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

/**
 * How C hears that a caller gave up: the call's breakwater scope when it has one, `null` when nothing can
 * cancel the call, else its signal. A scope's listeners cost a field, where reading `ctx.signal` would make an
 * `AbortController` per attempt; the scope tells its listeners in the same turn as its signal's, with the same
 * reason (lab/simulate.ts's runs are the same either way, byte for byte).
 */
type Cancel = Scope | AbortSignal | null;

function cancelOf(ctx: ExecutionContext): Cancel {
  return ctx instanceof Context ? (ctx.scope ?? null) : ctx.signal;
}

/** Something told once when the caller gives up, by its scope or by its signal. */
interface Quitter extends AbortListener {
  handleEvent(): void;
}

function listen(cancel: Cancel, q: Quitter): void {
  if (cancel instanceof Scope) cancel.add(q);
  else cancel?.addEventListener('abort', q, { once: true });
}

function unlisten(cancel: Cancel, q: Quitter): void {
  if (cancel instanceof Scope) cancel.remove(q);
  else cancel?.removeEventListener('abort', q);
}

/** A call waiting for its caller to give up (on its way to C, or hanging there), told with the abort's reason. */
class Waiting implements Quitter {
  constructor(
    readonly cancel: Scope | AbortSignal,
    private readonly quit: (reason: unknown) => void,
  ) {}

  handleEvent(): void {
    this.quit(this.cancel.reason);
  }

  onAbort(): void {
    this.quit(this.cancel.reason);
  }
}

/** One request inside C. It listens to its caller's cancellation as a real client would. */
class Job implements Quitter {
  abandoned = false;
  settled = false;
  constructor(
    readonly c: Dependency,
    /** Whether the fault hits this job (its method is the sick one, or every method is). */
    readonly sick: boolean,
    /** The key whose side effect the job applies when C finishes it without failing. */
    readonly effectKey: string | undefined,
    readonly cancel: Cancel,
    readonly resolve: (v: unknown) => void,
    readonly reject: (e: unknown) => void,
  ) {}

  /** The caller gave up: stop waiting (B's slot is freed), but C keeps the job. */
  handleEvent(): void {
    if (this.settled) return;
    this.abandoned = true;
    this.settled = true;
    this.c.settled(false);
    this.reject(this.cancel!.reason);
  }

  onAbort(): void {
    this.handleEvent();
  }
}

/**
 * Dependency C: `workers(t)` concurrent workers with exponential service
 * times, a FIFO queue of {@link MODEL.queueLimit} (or the run's model's), and no way to tell that a
 * caller went away once the request has reached it: an abandoned job is still
 * worked on when its turn comes (wasted work). Latency grows under load
 * through the queue: a job waits for every job ahead of it, wanted or not.
 * A job C finishes without failing applies its side effect (a write), wanted or
 * not: C counts them per key, so duplicate writes show. A fault may hit one
 * method alone (`scenario.sickMethod`), and in a hanging outage C accepts calls
 * and never answers them.
 */
export class Dependency {
  private readonly queue: (Job | undefined)[] = [];
  private head = 0;
  private busy = 0;
  private readonly okSlots = new Float64Array(10);
  private readonly allSlots = new Float64Array(10);
  private readonly slotEpoch = new Float64Array(10).fill(-1);
  /** Side effects applied per key. */
  private readonly effects = new Map<string, number>();
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

  /**
   * Share of the keys whose side effect C applied more than once, of the keys it applied at all (0 with none):
   * the duplicate writes of a run.
   */
  duplicateShare(): number {
    let applied = 0;
    let twice = 0;
    for (const n of this.effects.values()) {
      applied++;
      if (n > 1) twice++;
    }
    return applied === 0 ? 0 : twice / applied;
  }

  /**
   * One attempt at C, honouring `ctx.signal`; its side effect is applied under `effectKey` (`ctx.key` by default).
   * Under a network delay the call reaches C that much later; a caller that gives up meanwhile drops it on the way.
   */
  call(ctx: ExecutionContext, effectKey: string | undefined = ctx.key): Promise<unknown> {
    const t = this.clock.now() - this.t0;
    this.probe.onAttempt(t);
    const delay = this.scenario.networkDelayMs?.(t) ?? 0;
    return delay > 0 ? this.travel(delay, ctx, effectKey) : this.arrive(ctx, effectKey);
  }

  /** The call on its way to C for `delayMs`. */
  private travel(delayMs: number, ctx: ExecutionContext, effectKey: string | undefined): Promise<unknown> {
    const cancel = cancelOf(ctx);
    if (cancel?.aborted === true) return this.refuse(cancel.reason as Error);
    return new Promise((resolve, reject) => {
      const waiting =
        cancel === null
          ? undefined
          : new Waiting(cancel, (reason) => {
              this.clock.clearTimeout(timer);
              this.settled(false);
              reject(reason);
            });
      const timer = this.clock.setTimeout(() => {
        if (waiting !== undefined) unlisten(cancel, waiting);
        this.arrive(ctx, effectKey).then(resolve, reject);
      }, delayMs);
      if (waiting !== undefined) listen(cancel, waiting);
    });
  }

  /** The call reaches C. */
  private arrive(ctx: ExecutionContext, effectKey: string | undefined): Promise<unknown> {
    const t = this.clock.now() - this.t0;
    const sick = this.scenario.sickMethod === undefined || ctx.meta.method === this.scenario.sickMethod;
    if (sick && this.scenario.down(t)) return this.refuse(DOWN);
    const cancel = cancelOf(ctx);
    if (sick && this.scenario.hangs?.(t) === true) return this.hang(cancel);
    if (this.queue.length - this.head >= this.model.queueLimit) return this.refuse(FULL);
    if (cancel?.aborted === true) return Promise.reject(cancel.reason);
    return new Promise((resolve, reject) => {
      const job = new Job(this, sick, effectKey, cancel, resolve, reject);
      listen(cancel, job);
      this.queue.push(job);
      this.pump();
    });
  }

  /** A call C accepted and will never answer: it ends when its caller gives up, and C does no work for it. */
  private hang(cancel: Cancel): Promise<never> {
    if (cancel?.aborted === true) return Promise.reject(cancel.reason);
    return new Promise((_resolve, reject) => {
      if (cancel === null) return;
      listen(
        cancel,
        new Waiting(cancel, (reason) => {
          this.settled(false);
          reject(reason);
        }),
      );
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
      const ms = -Math.log(1 - this.random()) * this.model.serviceMeanMs * (job.sick ? this.scenario.slowdown(t) : 1);
      this.clock.setTimeout(() => this.finish(job), ms);
    }
  }

  private finish(job: Job): void {
    this.busy--;
    const t = this.clock.now() - this.t0;
    const failed = this.random() < (job.sick ? this.scenario.errorRate(t) : 0);
    unlisten(job.cancel, job);
    if (!failed && job.effectKey !== undefined) this.effects.set(job.effectKey, (this.effects.get(job.effectKey) ?? 0) + 1);
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
