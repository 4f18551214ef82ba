// What every process of a run (the generator A, the service B, the upstream C)
// shares: one clock, a life bounded in time, and the ask/answer over the IPC
// channel of child_process.fork.
import { monitorEventLoopDelay } from 'node:perf_hooks';

/**
 * Milliseconds since the epoch, sub-millisecond and monotonic within a
 * process. All processes of a run are on one machine, so their readings agree
 * and the run's start, sent by the bench, means the same instant to each.
 */
export const now = () => performance.timeOrigin + performance.now();

/**
 * Makes this process a child of the bench: it exits when the bench goes
 * (the IPC channel closes) or when `deadline` (epoch ms) passes, so no run
 * can leave a process behind. Returns the first message, the setup.
 */
export function asChild() {
  if (typeof process.send !== 'function') throw new Error('started by bench/faults only (needs an IPC channel)');
  process.on('disconnect', () => process.exit(0));
  return new Promise((resolve) => {
    process.once('message', (setup) => {
      const left = setup.deadline - Date.now();
      setTimeout(() => {
        process.stderr.write(`${process.argv[1]}: deadline passed, exiting\n`);
        process.exit(3);
      }, Math.max(0, left)).unref();
      resolve(setup);
    });
  });
}

/** Sends `message` to the bench and resolves once it has left. */
export function tell(message) {
  return new Promise((resolve, reject) => process.send(message, (error) => (error ? reject(error) : resolve())));
}

/** Resolves with the next message of `type` from the bench. */
export function next(type) {
  return new Promise((resolve) => {
    const on = (m) => {
      if (m?.type !== type) return;
      process.off('message', on);
      resolve(m);
    };
    process.on('message', on);
  });
}

/**
 * Event-loop delay of this process, as a histogram over the measured run and
 * one p99/max per second from `t0` (perf_hooks' monitorEventLoopDelay, 10 ms
 * resolution), with the CPU time the process used in each second: a loop
 * delayed while the process used little CPU was waiting for a core.
 */
export function loopDelay() {
  const whole = monitorEventLoopDelay({ resolution: 10 });
  const second = monitorEventLoopDelay({ resolution: 10 });
  const perSecond = [];
  let timer;
  let wholeTimer;
  const ms = (ns) => (Number.isFinite(ns) ? ns / 1e6 : 0);
  return {
    /** Starts the seconds at `t0` (epoch ms) and the whole-run histogram `measureFrom` ms later (after the warm-up). */
    start(t0, measureFrom = 0) {
      let cpu;
      const tick = () => {
        const used = process.cpuUsage(cpu);
        cpu = process.cpuUsage();
        perSecond.push({ p99: ms(second.percentile(99)), max: ms(second.max), cpuMs: (used.user + used.system) / 1e3 });
        second.reset();
        timer = setTimeout(tick, t0 + (perSecond.length + 1) * 1000 - now());
      };
      timer = setTimeout(() => {
        cpu = process.cpuUsage();
        second.enable();
        timer = setTimeout(tick, t0 + 1000 - now());
      }, Math.max(0, t0 - now()));
      wholeTimer = setTimeout(() => whole.enable(), Math.max(0, t0 + measureFrom - now()));
    },
    stop() {
      clearTimeout(timer);
      clearTimeout(wholeTimer);
      whole.disable();
      second.disable();
      return { p50: ms(whole.percentile(50)), p99: ms(whole.percentile(99)), max: ms(whole.max), perSecond };
    },
  };
}
