import { describe, expect, it } from 'vitest';
import { chaos, ConfigError, policy, TimeoutError, type PolicyEvent } from '../../../api/index.js';
import { scriptedRandom, seededRandom, TestClock } from '../../../lib/testing.js';

const START = 1_700_000_000_000;

async function share(rate: number, seed: number, n = 10_000): Promise<number> {
  const c = chaos({ fault: () => new Error('injected'), injectionRate: rate, random: seededRandom(seed) });
  let injected = 0;
  for (let i = 0; i < n; i++) {
    try {
      await c.execute(() => 1);
    } catch {
      injected++;
    }
  }
  return injected / n;
}

describe('chaos', () => {
  it('over 10,000 seeded calls the injected share is within 2 % of injectionRate', async () => {
    for (const [rate, seed] of [
      [0.1, 1],
      [0.5, 2],
      [0.02, 3],
    ] as const) {
      const s = await share(rate, seed);
      expect(Math.abs(s - rate)).toBeLessThanOrEqual(0.02);
    }
  });

  it('disabling at run time stops injection on the next call; enabling resumes it', async () => {
    const c = chaos({ fault: new Error('injected'), injectionRate: 1 });
    await expect(c.execute(() => 1)).rejects.toThrow('injected');
    c.disable();
    expect(c.enabled).toBe(false);
    await expect(c.execute(() => 1)).resolves.toBe(1);
    c.enable();
    await expect(c.execute(() => 1)).rejects.toThrow('injected');
  });

  it('enabled may be a function asked on every call, and draws nothing when off', async () => {
    let on = false;
    const random = scriptedRandom(0);
    const c = chaos({ fault: 'x', injectionRate: 0.5, enabled: (ctx) => on && ctx.key !== 'safe', random });
    await expect(c.execute(() => 1)).resolves.toBe(1);
    expect(random.draws).toBe(0);
    on = true;
    await expect(c.execute(() => 1, { key: 'safe' })).resolves.toBe(1);
    await expect(c.execute(() => 1)).rejects.toBe('x');
    expect(random.draws).toBe(1);
  });

  it('substitutes a result without running the operation', async () => {
    let ran = 0;
    const events: PolicyEvent[] = [];
    const c = chaos({ result: () => 'x' as const, injectionRate: 1 });
    c.events$.subscribe((e) => events.push(e));
    await expect(
      c.execute(() => {
        ran++;
        return 1;
      }),
    ).resolves.toBe('x');
    expect(ran).toBe(0);
    expect(events.map((e) => e.type)).toEqual(['injected', 'outcome']);
    expect(events[0]).toMatchObject({ kind: 'result' });
  });

  it('injects latency on the clock, then runs the operation', async () => {
    const clock = new TestClock(START);
    const c = chaos({ latency: 200, injectionRate: 1, clock });
    let doneAt = 0;
    const r = c.execute(() => 'ok').then((v) => ((doneAt = clock.now()), v));
    await clock.advance(200);
    await expect(r).resolves.toBe('ok');
    expect(doneAt).toBe(START + 200);
    expect(clock.pendingTimers).toBe(0);
  });

  it('injected latency is cut short by an enclosing deadline and by the caller', async () => {
    const clock = new TestClock(START);
    const p = policy({ clock }).chaos({ latency: () => 5_000, injectionRate: 1 }).timeout(100);
    const r = p.execute(() => 'ok');
    const check = expect(r).rejects.toBeInstanceOf(TimeoutError);
    await clock.advance(100);
    await check;
    expect(clock.pendingTimers).toBe(0);

    const ac = new AbortController();
    const r2 = chaos({ latency: 5_000, injectionRate: 1, clock }).execute(() => 'ok', { signal: ac.signal });
    ac.abort(new Error('stop'));
    await expect(r2).rejects.toThrow('stop');
    expect(clock.pendingTimers).toBe(0);
  });

  it('latency then fault, with one injected event per kind', async () => {
    const clock = new TestClock(START);
    const events: PolicyEvent[] = [];
    const c = chaos({ latency: 10, fault: (ctx) => new Error(`fault ${ctx.attempt}`), injectionRate: 1, clock });
    c.events$.subscribe((e) => events.push(e));
    const r = c.execute(() => 'ok');
    const check = expect(r).rejects.toThrow('fault 1');
    await clock.advance(10);
    await check;
    expect(events.map((e) => (e.type === 'injected' ? e.kind : e.type))).toEqual(['latency', 'fault', 'outcome']);
    expect(events[2]).toMatchObject({ result: 'failure', durationMs: 10 });
  });

  it("the builder hands its random source and clock to chaos", async () => {
    const clock = new TestClock(START);
    const random = scriptedRandom(0.5, 0.05);
    const p = policy({ clock, random }).chaos({ result: () => 'x' as const, latency: 10, injectionRate: 0.1 });
    await expect(p.execute(() => 1)).resolves.toBe(1);
    const r = p.execute(() => 1);
    await clock.advance(10);
    await expect(r).resolves.toBe('x');
    expect(random.draws).toBe(2);
    expect(clock.pendingTimers).toBe(0);
  });

  it('bad options are a ConfigError naming the option', () => {
    const issue = (f: () => unknown): string => {
      try {
        f();
      } catch (e) {
        expect(e).toBeInstanceOf(ConfigError);
        return (e as ConfigError).issues.map((i) => i.path).join(',');
      }
      throw new Error('no error');
    };
    expect(issue(() => chaos({ fault: 'x', injectionRate: 1.5 }))).toBe('injectionRate');
    expect(issue(() => chaos({ injectionRate: 0.1 }))).toBe('fault');
    expect(issue(() => chaos({ fault: 'x', result: () => 1 }))).toBe('result');
    expect(issue(() => chaos({ latency: -5 }))).toBe('latency');
    expect(issue(() => chaos({ fault: 'x', enabled: 'yes' as never }))).toBe('enabled');
    expect(issue(() => chaos({ fault: 'x', rate: 1 } as never))).toBe('rate');
  });
});
