import { Redis } from 'ioredis';
import { afterEach, expect, it } from 'vitest';
import { adaptiveBreaker, breaker, circuitBreaker, isBrokenCircuitError, sreBreaker, type BreakerPolicy } from '../../../api/index.js';
import { redisFleet, type FleetEvent, type RedisFleet, type RedisFleetOptions } from '../../../integrations/redis/index.js';
import { TestClock } from '../../../lib/testing.js';
import { T0 } from '../../helpers/breakers.js';
import { describeRedis, useRedis } from '../../helpers/redis.js';

// Virtual time: summaries every second, each exchange's deadline 250 ms, summaries stale after 20 s.
const SUMMARY = 1_000;
const TIMEOUT = 250;
const STALE = 20_000;
const OPEN = 2_000;

/** One instance of the service: its own client, its own clocks (the fleet's, the breaker's), its breaker and fleet handle. */
interface Instance {
  readonly id: string;
  readonly redis: Redis;
  readonly clock: TestClock;
  readonly breakerClock: TestClock;
  readonly breaker: BreakerPolicy;
  readonly fleet: RedisFleet;
  readonly events: FleetEvent[];
}

const down = (): Promise<never> => Promise.reject(new Error('dependency down'));
/** What a call meets: 'ran' (the operation ran) or 'shed' (the breaker refused it). */
const call = (i: Instance): Promise<string> =>
  i.breaker.execute(() => 'ran').catch((e: unknown) => (isBrokenCircuitError(e) ? 'shed' : Promise.reject(e)));

describeRedis('redisFleet', () => {
  const db = useRedis();
  const made: Instance[] = [];
  let fleetNo = 0;
  let key = '';

  afterEach(async () => {
    for (const i of made.splice(0)) {
      void i.fleet.dispose();
      i.redis.disconnect();
    }
    key = `fleet-${++fleetNo}`;
  });
  key = `fleet-${++fleetNo}`;

  function instance(id: string, make: (clock: TestClock) => BreakerPolicy, options: Partial<RedisFleetOptions> = {}): Instance {
    const redis = new Redis(db.server.port, '127.0.0.1', { retryStrategy: () => 50, maxRetriesPerRequest: null });
    redis.on('error', () => undefined);
    const clock = new TestClock(T0);
    const breakerClock = new TestClock(T0);
    const b = make(breakerClock);
    const fleet = redisFleet(redis, b, {
      key,
      instanceId: id,
      quorum: 2,
      summaryMs: SUMMARY,
      commandTimeoutMs: TIMEOUT,
      staleMs: STALE,
      openMs: OPEN,
      clock,
      ...options,
    });
    const events: FleetEvent[] = [];
    fleet.events$.subscribe((e) => events.push(e));
    const i = { id, redis, clock, breakerClock, breaker: b, fleet, events };
    made.push(i);
    return i;
  }

  const stateMachine = (clock: TestClock) => circuitBreaker({ trip: 'consecutiveFailures', threshold: 3, minRequests: 0, openMs: 600_000, clock });

  /** Fails calls (advancing the breaker's own clock) until the instance's own breaker opens. */
  async function sicken(i: Instance): Promise<void> {
    for (let n = 0; n < 500 && i.breaker.state === 'closed'; n++) {
      await i.breaker.execute(down).catch(() => undefined);
      await i.breakerClock.advance(20);
    }
    expect(i.breaker.state).not.toBe('closed');
  }

  /**
   * Moves an instance's fleet clock on by `ms` while Redis answers: in steps no longer than the exchange
   * deadline, each followed by an exchange, so an exchange the timer started never times out in virtual time
   * while its real answer is on the way.
   */
  async function pass(i: Instance, ms: number): Promise<void> {
    for (let done = 0; done < ms; done += TIMEOUT) {
      await i.clock.advance(Math.min(TIMEOUT, ms - done));
      await i.fleet.sync();
    }
  }

  /** Moves an instance's fleet clock on by `ms` while Redis does not answer: every exchange times out. */
  async function outage(i: Instance, ms: number): Promise<void> {
    for (let done = 0; done < ms; done += 50) await i.clock.advance(Math.min(50, ms - done));
  }

  it('a dependency dead for all: every instance, of every breaker family, opens at its first exchange after the quorum is reached', async () => {
    const sre = instance('sre', (clock) => sreBreaker({ clock }), { quorum: 3 });
    const adaptive = instance('adaptive', (clock) => adaptiveBreaker({ clock, random: () => 0.99 }), { quorum: 3 });
    const machine = instance('machine', stateMachine, { quorum: 3 });
    // little traffic: one failure, its own breaker stays closed
    const quiet = instance('quiet', (clock) => breaker({ clock, random: () => 0.99 }), { quorum: 3 });
    const all = [sre, adaptive, machine, quiet];
    for (const i of all) await i.fleet.sync();
    await quiet.breaker.execute(down).catch(() => undefined);
    expect(quiet.breaker.state).toBe('closed');

    await sicken(sre);
    await sicken(adaptive);
    for (const i of all) expect((await i.fleet.sync()).open).toBe(false);
    expect(await call(quiet)).toBe('ran');

    await sicken(machine);
    // the third sick summary reaches the quorum: its own exchange opens it ...
    const view = await machine.fleet.sync();
    expect(view).toMatchObject({ live: 4, sick: 3, needed: 3, open: true, connected: true });
    expect(machine.events.filter((e) => e.type === 'fleetOpen')).toEqual([{ type: 'fleetOpen', key, instance: 'machine', live: 4, sick: 3, needed: 3 }]);
    // ... and each other instance's next one opens it
    for (const i of [sre, adaptive, quiet]) {
      expect((await i.fleet.sync()).open).toBe(true);
      expect(i.events.map((e) => e.type)).toEqual(['fleetOpen']);
    }
    expect(await call(quiet)).toBe('shed');
    expect(quiet.breaker.state).toBe('open');
    expect(quiet.fleet.view().members.map((m) => m.id).sort()).toEqual(['adaptive', 'machine', 'quiet', 'sre']);
  });

  it('one instance that alone sees failures trips only itself', async () => {
    const sick = instance('a', stateMachine);
    const others = [instance('b', stateMachine), instance('c', stateMachine)];
    await sicken(sick);
    for (const i of [sick, ...others, sick, ...others]) await i.fleet.sync();
    for (const i of [sick, ...others]) expect(i.fleet.view()).toMatchObject({ live: 3, sick: 1, needed: 2, open: false });
    expect(await call(sick)).toBe('shed'); // its own breaker
    for (const i of others) expect(await call(i)).toBe('ran');
    for (const i of [sick, ...others]) expect(i.events).toEqual([]);
  });

  it('a quorum that is a share of the live instances: half of four, not one of four', async () => {
    const share = { quorum: { share: 0.5, atLeast: 1 } };
    const fleet = ['a', 'b', 'c', 'd'].map((id) => instance(id, stateMachine, share));
    for (const i of fleet) await i.fleet.sync();
    await sicken(fleet[0]!);
    for (const i of fleet) await i.fleet.sync();
    for (const i of fleet) expect(i.fleet.view()).toMatchObject({ live: 4, sick: 1, needed: 2, open: false });
    await sicken(fleet[1]!);
    for (const i of [fleet[1]!, fleet[0]!, fleet[2]!, fleet[3]!]) expect((await i.fleet.sync()).open).toBe(true);
  });

  it('a dead instance leaves the quorum once its summary is stale', async () => {
    const a = instance('a', stateMachine);
    const b = instance('b', stateMachine);
    const c = instance('c', stateMachine);
    await sicken(b);
    for (const i of [a, b, c]) await i.fleet.sync();
    // b dies: its clock stops, it writes no more summaries; a and c go on
    await pass(a, STALE - 2 * SUMMARY);
    await pass(c, STALE - 2 * SUMMARY);
    // still counted: one more sick instance would open the fleet
    expect(a.fleet.view()).toMatchObject({ live: 3, sick: 1, needed: 2 });
    await pass(a, 3 * SUMMARY);
    await pass(c, 3 * SUMMARY);
    for (const i of [a, c]) expect(i.fleet.view().members.map((m) => m.id).sort()).toEqual(['a', 'c']);
    await sicken(a);
    for (const i of [a, c, a]) await i.fleet.sync();
    for (const i of [a, c]) expect(i.fleet.view()).toMatchObject({ live: 2, sick: 1, needed: 2, open: false });
    expect(await call(c)).toBe('ran');
    for (const i of [a, c]) expect(i.events).toEqual([]);
  });

  it('drops a summary Redis has held for longer than staleMs, and one it cannot read, even unseen before', async () => {
    const hash = `breakwater:fleet:${key}`;
    // written at epoch second 1 by Redis's clock: long stale
    await db.redis.hset(hash, 'ghost', '1000|7|1|0|open', 'junk', 'no stamp');
    const a = instance('a', stateMachine, { quorum: 1 });
    const view = await a.fleet.sync();
    expect(view).toMatchObject({ live: 1, sick: 0, open: false });
    expect(await db.redis.hkeys(hash)).toEqual(['a']);
  });

  it('a reset() while the fleet holds the breaker ends the hold; the next exchange holds it again while the quorum stands', async () => {
    // no clock option: the fleet runs on the breaker's clock
    const clock = new TestClock(T0);
    const a = instance('a', () => stateMachine(clock), { quorum: 1, clock: undefined });
    const b = instance('b', stateMachine, { quorum: 1 });
    await sicken(b);
    for (const i of [b, a]) await i.fleet.sync();
    expect(await call(a)).toBe('shed');
    a.breaker.reset();
    expect(a.fleet.view().open).toBe(false);
    expect(await call(a)).toBe('ran');
    expect((await a.fleet.sync()).open).toBe(true);
    expect(a.events.map((e) => e.type)).toEqual(['fleetOpen', 'fleetOpen']);
    // the timer is on the breaker's clock
    await clock.advance(SUMMARY);
    await a.fleet.sync();
    expect(a.fleet.view().members.find((m) => m.id === 'b')!.ageMs).toBeGreaterThanOrEqual(SUMMARY);
  });

  it('closes once the quorum is gone and openMs has passed, never before; released, the breaker is closed', async () => {
    const a = instance('a', stateMachine, { openMs: 10_000 });
    const b = instance('b', stateMachine, { openMs: 10_000 });
    await sicken(a);
    await sicken(b);
    for (const i of [a, b, a]) await i.fleet.sync();
    expect(a.fleet.view().open).toBe(true);
    // held open, neither publishes evidence: the quorum is gone at the next round
    await pass(a, SUMMARY);
    await pass(b, SUMMARY);
    await pass(a, SUMMARY);
    expect(a.fleet.view()).toMatchObject({ sick: 0, open: true });
    await pass(a, 10_000 - 3 * SUMMARY);
    expect(a.fleet.view().open).toBe(true);
    expect(await call(a)).toBe('shed');
    await pass(a, 2 * SUMMARY);
    expect(a.fleet.view().open).toBe(false);
    expect(a.events.map((e) => e.type)).toEqual(['fleetOpen', 'fleetClose']);
    expect(a.breaker.state).toBe('closed');
    expect(await call(a)).toBe('ran');
  });

  it('Redis killed mid-run: each instance falls back to its own breaker, and the fleet view returns after Redis restarts', async () => {
    const a = instance('a', stateMachine);
    const b = instance('b', stateMachine);
    const c = instance('c', stateMachine);
    await sicken(a);
    await sicken(b);
    for (const i of [a, b, c, a]) await i.fleet.sync();
    for (const i of [a, b, c]) expect(i.fleet.view().open).toBe(true);

    await db.server.kill();
    try {
      // every exchange fails; the held summaries age out after staleMs; then the next tick releases
      for (const i of [a, b, c]) await outage(i, STALE + 2 * SUMMARY);
      for (const i of [a, b, c]) {
        expect(i.fleet.view()).toMatchObject({ live: 0, open: false, connected: false });
        expect(i.events.map((e) => e.type)).toEqual(['fleetOpen', 'exchangeFailed', 'fleetClose']);
      }
      // local breakers: c's dependency answers, a's fails and a's own breaker trips, alone
      expect(await call(c)).toBe('ran');
      await sicken(a);
      expect(await call(a)).toBe('shed');
      expect(await call(c)).toBe('ran');
    } finally {
      await db.server.start();
    }
    for (const i of [a, b, c]) await ready(i.redis);
    await db.ready();
    await sicken(b);
    for (const i of [a, b, c, a]) await i.fleet.sync();
    for (const i of [a, b, c]) {
      expect(i.fleet.view()).toMatchObject({ connected: true, open: true });
      expect(i.events.slice(3).map((e) => e.type)).toEqual(['exchangeRestored', 'fleetOpen']);
    }
    expect(await call(c)).toBe('shed');
  });

  it('nothing on the call path waits for Redis: with redis-server stopped (SIGSTOP), 1,000 calls settle before it resumes', async () => {
    const sick = instance('a', stateMachine);
    const healthy = instance('b', stateMachine);
    await sicken(sick);
    for (const i of [sick, healthy]) await i.fleet.sync();

    const info = await db.redis.info('server');
    const pid = Number(/process_id:(\d+)/.exec(info)![1]);
    process.kill(pid, 'SIGSTOP');
    try {
      let settled = false;
      const exchanges = [sick, healthy].map((i) => i.fleet.sync().then((v) => ((settled = true), v)));
      const outcomes = await Promise.all(Array.from({ length: 1_000 }, (_, n) => call(n % 2 === 0 ? sick : healthy)));
      expect(outcomes.filter((o) => o === 'shed')).toHaveLength(500);
      expect(outcomes.filter((o) => o === 'ran')).toHaveLength(500);
      // the exchanges begun before the calls still wait on the stopped server
      expect(settled).toBe(false);
      for (const i of [sick, healthy]) await i.clock.advance(TIMEOUT);
      for (const e of exchanges) expect(await e).toMatchObject({ connected: false });
      for (const i of [sick, healthy]) expect(i.events.map((e) => e.type)).toEqual(['exchangeFailed']);
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    for (const i of [sick, healthy]) {
      expect(await i.fleet.sync()).toMatchObject({ connected: true, open: false, live: 2, sick: 1 });
      expect(i.events.map((e) => e.type)).toEqual(['exchangeFailed', 'exchangeRestored']);
    }
  });

  it('a breaker that opened and closed again while an exchange was on its way is reported sick by the next summary', async () => {
    const a = instance('a', stateMachine);
    const b = instance('b', stateMachine);
    for (const i of [a, b]) await i.fleet.sync();
    const pid = Number(/process_id:(\d+)/.exec(await db.redis.info('server'))![1]);
    process.kill(pid, 'SIGSTOP');
    let pending: Promise<unknown>;
    try {
      // the summary on its way says healthy; meanwhile the breaker trips and is reset
      pending = a.fleet.sync();
      await sicken(a);
      a.breaker.reset();
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    expect(await pending).toMatchObject({ connected: true, sick: 0 });
    await a.fleet.sync();
    expect((await b.fleet.sync()).members.find((m) => m.id === 'a')).toMatchObject({ sick: true, state: 'closed' });
  });

  it('dispose leaves the fleet: the summary is removed and the breaker released', async () => {
    const a = instance('a', stateMachine);
    const b = instance('b', stateMachine);
    await sicken(a);
    await sicken(b);
    for (const i of [a, b, a]) await i.fleet.sync();
    expect(a.fleet.view().open).toBe(true);
    expect(await db.redis.hlen(`breakwater:fleet:${key}`)).toBe(2);
    expect(await db.redis.pttl(`breakwater:fleet:${key}`)).toBeGreaterThan(0);
    await a.fleet.dispose();
    expect(await db.redis.hkeys(`breakwater:fleet:${key}`)).toEqual(['b']);
    // released (closed with empty counters) and no longer exchanging
    expect(a.breaker.state).toBe('closed');
    expect(a.events.map((e) => e.type)).toEqual(['fleetOpen']);
    // no exchange any more: the timer is gone and sync() only reads the held view
    await a.clock.advance(5 * SUMMARY);
    expect((await a.fleet.sync()).open).toBe(false);
    expect(await db.redis.hkeys(`breakwater:fleet:${key}`)).toEqual(['b']);
  });
});

/** Waits (briefly, in real time) until a client has reconnected after a restart. */
async function ready(redis: Redis): Promise<void> {
  for (let n = 0; n < 200 && redis.status !== 'ready'; n++) await new Promise((r) => setTimeout(r, 25));
  expect(redis.status).toBe('ready');
}
