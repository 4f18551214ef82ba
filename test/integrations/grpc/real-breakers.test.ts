import { status } from '@grpc/grpc-js';
import { afterEach, describe, expect, it } from 'vitest';
import { TestClock } from '../../../lib/testing.js';
import { circuitBreaker, type CircuitBreakerPolicy } from '../../../policies/circuit-breaker/index.js';
import { sreBreaker } from '../../../policies/sre-breaker/index.js';
import { clientInterceptor, serverInterceptor, SHED_DETAILS } from '../../../integrations/grpc/index.js';
import { startUsers, type Running } from './service.js';

let running: Running | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

describe('the gRPC interceptors with breakwater breakers', () => {
  it('server: a circuitBreaker per method opens on UNAVAILABLE, sheds, and closes after a probe', async () => {
    const clock = new TestClock(1_000_000);
    const made = new Map<string, CircuitBreakerPolicy>();
    running = await startUsers([
      serverInterceptor({
        sourceFor: (name) => {
          const b = circuitBreaker({ name, strategy: 'consecutiveFailures', threshold: 3, openMs: 1_000, clock });
          made.set(name, b);
          return b;
        },
      }),
    ]);
    const client = running.client();
    running.backend.code = status.UNAVAILABLE;
    for (let i = 0; i < 3; i++) expect((await running.call(client)).code).toBe(status.UNAVAILABLE);
    const b = made.get('/demo.Users/Get')!;
    expect(b.state).toBe('open');
    expect(await running.call(client)).toEqual({ code: status.UNAVAILABLE, details: SHED_DETAILS });
    expect(running.backend.calls).toBe(3);
    running.backend.code = 0;
    await clock.advance(1_000);
    expect((await running.call(client)).code).toBe(status.OK);
    expect(b.state).toBe('closed');
  });

  it('client: an sreBreaker stops sending once UNAVAILABLE dominates, and lets calls through again as they succeed', async () => {
    const clock = new TestClock(1_000_000);
    running = await startUsers();
    const breaker = sreBreaker({ name: 'users', clock, random: () => 0, protection: 2, forcePassMs: 1_000 });
    const client = running.client([clientInterceptor({ target: running.target, source: breaker })]);
    running.backend.code = status.UNAVAILABLE;
    const codes: Array<string | undefined> = [];
    for (let i = 0; i < 6; i++) codes.push((await running.call(client)).details);
    expect(codes.slice(0, 3)).toEqual(['backend says no', 'backend says no', 'backend says no']);
    expect(codes.at(-1)).toBe(SHED_DETAILS);
    const sent = running.backend.calls;
    expect(sent).toBeLessThan(6);
    // the window (10 s) forgets the failures: calls flow again, and succeed
    running.backend.code = 0;
    await clock.advance(10_000);
    expect((await running.call(client)).code).toBe(status.OK);
    expect(running.backend.calls).toBe(sent + 1);
    expect(breaker.state).toBe('closed');
  });
});
