import { expect } from 'vitest';
import { TestClock } from '../../../lib/testing.js';
import { TestBreaker } from '../helpers/test-breaker.js';
import { until } from '../helpers/http-server.js';

/** The state a handler under test reads: whether it fails, how often it ran. */
export interface Backend {
  failing: boolean;
  calls: number;
}

/**
 * The shared story for every HTTP integration: a handler failing with 500s
 * trips the breaker (3 in a row), calls are then shed with 503 and
 * `Retry-After: 1` without reaching the handler, and after the open second
 * (TestClock) a probe that succeeds closes the breaker again.
 */
export async function tripShedRecover(url: string, backend: Backend, breaker: TestBreaker, clock: TestClock): Promise<void> {
  backend.failing = true;
  for (let i = 0; i < 3; i++) {
    const res = await fetch(url);
    expect(res.status).toBe(500);
    await res.arrayBuffer();
  }
  await until(() => breaker.settled.failure === 3);
  expect(breaker.state).toBe('open');
  expect(backend.calls).toBe(3);
  const shed = await fetch(url);
  expect(shed.status).toBe(503);
  expect(shed.headers.get('retry-after')).toBe('1');
  await shed.arrayBuffer();
  expect(backend.calls).toBe(3);

  backend.failing = false;
  await clock.advance(1_000);
  const probe = await fetch(url);
  expect(probe.status).toBe(200);
  expect(await probe.text()).toBe('ok');
  await until(() => breaker.state === 'closed');
  const after = await fetch(url);
  expect(after.status).toBe(200);
  await after.arrayBuffer();
  expect(backend.calls).toBe(5);
  await until(() => breaker.settled.success === 2);
}

export function makeBreaker(): { clock: TestClock; breaker: TestBreaker } {
  const clock = new TestClock(1_000_000);
  return { clock, breaker: new TestBreaker({ name: 'http', failures: 3, openMs: 1_000, clock }) };
}
