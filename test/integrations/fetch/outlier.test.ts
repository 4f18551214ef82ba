import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { policy } from '../../../api/builder.js';
import { resilientFetch } from '../../../integrations/fetch/index.js';
import { TestClock } from '../../../lib/testing.js';
import { constant } from '../../../policies/retry/index.js';
import { outlierDetection } from '../../../policies/outlier/index.js';

// Three real node:http servers on loopback; one answers 500 to everything.
const servers: Server[] = [];
const received = new Map<string, number>();
let hosts: string[] = [];

beforeAll(async () => {
  for (const status of [200, 500, 200]) {
    const server = createServer((req, res) => {
      const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
      received.set(host, (received.get(host) ?? 0) + 1);
      res.writeHead(status, { 'content-type': 'text/plain' });
      res.end(host);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
  }
  hosts = servers.map((s) => `127.0.0.1:${(s.address() as AddressInfo).port}`);
});
afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
});

describe('outlierDetection with resilientFetch on real servers', () => {
  it('ejects the host that answers 500 after 5 in a row; each attempt picks its host from the URL function', async () => {
    const clock = new TestClock();
    const pool = outlierDetection({ hosts, clock });
    const http = resilientFetch(policy({ clock }).use(pool).retry({ maxAttempts: 2, backoff: constant(0) }));
    const answers: string[] = [];
    for (let i = 0; i < 30; i++) {
      const res = (await http((ctx) => `http://${ctx.meta['host']}/users/42`)) as Response;
      expect(res.status).toBe(200);
      answers.push(await res.text());
    }
    const sick = hosts[1]!;
    // every call answered by a healthy host; the sick one saw exactly the 5 failures that ejected it
    expect(answers.filter((h) => h === sick)).toEqual([]);
    expect(received.get(sick)).toBe(5);
    expect(pool.status()[1]).toMatchObject({ host: sick, ejected: true, ejections: 1 });
    expect((received.get(hosts[0]!) ?? 0) + (received.get(hosts[2]!) ?? 0)).toBe(30);
  });
});
