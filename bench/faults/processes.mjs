// Starting and stopping the processes of a run. Every child is forked with an
// IPC channel, remembered by its PID until it has exited, and killed by that
// PID on every way out of the bench: the end of its run, an error, SIGINT or
// SIGTERM, or the bench's own exit. A child also exits by itself when the
// bench goes or its deadline passes (bench/faults/child.mjs).
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** PIDs of the children not yet seen to exit. */
const live = new Map();
/** Every PID this bench started, for the results (and the smoke test's check that none is left). */
export const started = [];

function killAll(signal) {
  for (const pid of live.keys()) {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}

let guarded = false;
/** Installs the exit paths once: children are killed whatever ends the bench. */
export function guardExits() {
  if (guarded) return;
  guarded = true;
  process.on('exit', () => killAll('SIGKILL'));
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => {
      process.stderr.write(`\nbench:faults: ${signal}, stopping ${live.size} process(es)\n`);
      killAll('SIGKILL');
      process.exit(130);
    });
  }
  process.on('uncaughtException', (error) => {
    process.stderr.write(`bench:faults: ${error?.stack ?? error}\n`);
    killAll('SIGKILL');
    process.exit(1);
  });
  process.on('unhandledRejection', (error) => {
    process.stderr.write(`bench:faults: ${error?.stack ?? error}\n`);
    killAll('SIGKILL');
    process.exit(1);
  });
}

/** One child process of a run. */
export class Child {
  constructor(role, script, setup) {
    this.role = role;
    this.proc = fork(fileURLToPath(new URL(script, import.meta.url)), [], {
      serialization: 'advanced', // typed arrays cross as they are
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      execArgv: [],
    });
    this.pid = this.proc.pid;
    live.set(this.pid, role);
    started.push({ role, pid: this.pid });
    this.exited = new Promise((resolve) =>
      this.proc.once('exit', (code, signal) => {
        live.delete(this.pid);
        resolve({ code, signal });
      }),
    );
    this.proc.on('error', () => {});
    this.proc.send(setup);
  }

  /** The next message of `type`; rejects if the child exits first or `ms` passes. */
  waitFor(type, ms) {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => finish(new Error(`${this.role} (pid ${this.pid}): no ${type} within ${ms} ms`)), ms);
      const onMessage = (m) => m?.type === type && finish(undefined, m);
      const onExit = (code, signal) => finish(new Error(`${this.role} (pid ${this.pid}) exited (${code ?? signal}) before ${type}`));
      const finish = (error, m) => {
        clearTimeout(timer);
        this.proc.off('message', onMessage);
        this.proc.off('exit', onExit);
        if (error) reject(error);
        else resolve(m);
      };
      this.proc.on('message', onMessage);
      this.proc.once('exit', onExit);
    });
  }

  send(message) {
    if (this.proc.connected) this.proc.send(message);
  }

  /** Stops the child by its PID: SIGTERM, then SIGKILL after `graceMs`. Resolves when it has exited. */
  async stop(graceMs = 2_000) {
    if (!live.has(this.pid)) return this.exited;
    try {
      process.kill(this.pid, 'SIGTERM');
    } catch {
      // already gone
    }
    const timer = setTimeout(() => {
      try {
        process.kill(this.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }, graceMs);
    const exit = await this.exited;
    clearTimeout(timer);
    return exit;
  }
}

/** How many children are still running. */
export function liveCount() {
  return live.size;
}
