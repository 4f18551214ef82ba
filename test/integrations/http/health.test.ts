import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { policy } from '../../../api/builder.js';
import { ConfigError } from '../../../lib/errors.js';
import { TestClock } from '../../../lib/testing.js';
import { healthHandler } from '../../../integrations/http/index.js';

// A real node:http server on loopback serving the handler.
let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

async function serve(handler: ReturnType<typeof healthHandler>): Promise<string> {
  server = createServer(handler);
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/health`;
}

describe('healthHandler', () => {
  it('serves the report as JSON: 200 while up, degradedStatus once a breaker sheds', async () => {
    const clock = new TestClock(1_000);
    const p = policy({ clock }).circuitBreaker({ name: 'payments', trip: 'consecutiveFailures', threshold: 1, openMs: 5_000 });
    const url = await serve(healthHandler(p, { degradedStatus: 503 }));
    const up = await fetch(url);
    expect(up.status).toBe(200);
    expect(up.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(up.headers.get('cache-control')).toBe('no-store');
    expect(await up.json()).toMatchObject({ status: 'up', breakers: [{ name: 'payments', state: 'closed', control: 'enforcing' }] });
    await p.execute(async () => Promise.reject(new Error('down'))).catch(() => undefined);
    const down = await fetch(url);
    expect(down.status).toBe(503);
    expect(await down.json()).toMatchObject({
      status: 'degraded',
      breakers: [{ name: 'payments', state: 'open', lastTransition: { from: 'closed', to: 'open', reason: 'threshold', at: 1_000 } }],
    });
    const head = await fetch(url, { method: 'HEAD' });
    expect(head.status).toBe(503);
    expect(await head.text()).toBe('');
  });

  it('answers 200 when degraded by default, and refuses bad options naming them', async () => {
    const p = policy().circuitBreaker({ name: 'x', trip: 'consecutiveFailures', threshold: 1 });
    await p.execute(async () => Promise.reject(new Error('down'))).catch(() => undefined);
    const res = await fetch(await serve(healthHandler(p)));
    expect(res.status).toBe(200);
    expect(((await res.json()) as { status: string }).status).toBe('degraded');
    expect(() => healthHandler(p, { degradedStatus: 99 })).toThrow(ConfigError);
    expect(() => healthHandler(p, { degradedStatus: 99 })).toThrow(/degradedStatus: expected an HTTP status from 200 to 599, got 99/);
    expect(() => healthHandler({} as never)).toThrow(/target: expected a breaker/);
  });
});
