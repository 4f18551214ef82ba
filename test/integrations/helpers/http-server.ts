import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A real node:http server on 127.0.0.1, on a free port. */
export interface LocalServer {
  readonly url: string;
  readonly server: Server;
  close(): Promise<void>;
}

/** Starts `handler` (or an already made server) on 127.0.0.1:0. */
export async function listen(handler: ((req: IncomingMessage, res: ServerResponse) => void) | Server): Promise<LocalServer> {
  const server = typeof handler === 'function' ? createServer(handler) : handler;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((e) => (e ? reject(e) : resolve()));
      }),
  };
}

/** Waits, in real time, until `condition` holds (a few ms per check, `timeoutMs` at most). */
export async function until(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error('until: condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}
