import { EMPTY } from 'rxjs';
import { systemClock } from '../../lib/clock.js';
import { executeWith } from '../../lib/context.js';
import { RUN, type Chain, type ExecuteOptions, type ExecutionContext, type Operation, type Policy } from '../../lib/policy.js';
import type { TestClock } from '../../lib/testing.js';

/** A policy written by a user to the contract of docs/composition.md: a name, no events, and its own `[RUN]`. */
export function userPolicy(name: string, run: <R>(op: Operation<R>, ctx: ExecutionContext, next: Chain | undefined) => Promise<R>): Policy<never> {
  const p: Policy<never> = {
    name,
    events$: EMPTY,
    execute: <R>(op: Operation<R>, options?: ExecuteOptions) => executeWith(p, op, options, systemClock) as Promise<R>,
    [RUN]: run,
  };
  return p;
}

/** A plain (user-made) context whose caller signal has already aborted with `reason`. */
export function abortedContext(clock: TestClock, reason: unknown): ExecutionContext {
  const ac = new AbortController();
  ac.abort(reason);
  return { signal: ac.signal, clock, deadline: undefined, attempt: 1, key: undefined, meta: {} } as ExecutionContext;
}
