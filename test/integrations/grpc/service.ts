import {
  Server,
  ServerCredentials,
  credentials,
  makeGenericClientConstructor,
  status,
  type Client,
  type Interceptor,
  type ServerInterceptor,
  type ServiceError,
  type ServiceDefinition,
  type ServerUnaryCall,
  type sendUnaryData,
} from '@grpc/grpc-js';

const json = {
  serialize: (v: unknown) => Buffer.from(JSON.stringify(v)),
  deserialize: (b: Buffer) => JSON.parse(b.toString()) as unknown,
};
const unary = (path: string) => ({
  path,
  requestStream: false,
  responseStream: false,
  requestSerialize: json.serialize,
  requestDeserialize: json.deserialize,
  responseSerialize: json.serialize,
  responseDeserialize: json.deserialize,
});

/** A hand-made service with JSON messages: no protoc, no .proto file. */
export const UsersService = { get: unary('/demo.Users/Get') } satisfies ServiceDefinition;

/** What the test scripts: the code the handler fails with (0: answer), how often it ran. */
export interface Backend {
  code: number;
  calls: number;
  /** When set, the handler never answers (for cancellation tests). */
  hang?: boolean;
  /** When set, the handler throws this (a non-gRPC error). */
  throws?: unknown;
}

export interface Running {
  readonly target: string;
  readonly backend: Backend;
  client(interceptors?: Interceptor[]): Client & { get(req: unknown, options: object, cb: (e: ServiceError | null, r?: unknown) => void): unknown };
  call(client: Client, req?: unknown, options?: object): Promise<{ code: number; details?: string; value?: unknown }>;
  stop(): Promise<void>;
}

/** Starts a grpc-js server on 127.0.0.1 (free port) serving `UsersService` with `interceptors`. */
export async function startUsers(interceptors: ServerInterceptor[] = []): Promise<Running> {
  const backend: Backend = { code: 0, calls: 0 };
  const server = new Server({ interceptors });
  server.addService(UsersService, {
    get(call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) {
      backend.calls++;
      if (backend.hang) return;
      if (backend.throws !== undefined) throw backend.throws;
      if (backend.code !== 0) return callback({ code: backend.code, details: 'backend says no' });
      callback(null, { id: (call.request as { id?: unknown }).id, name: 'Ada' });
    },
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
  );
  const target = `127.0.0.1:${port}`;
  const Ctor = makeGenericClientConstructor(UsersService, 'Users');
  const clients: Client[] = [];
  return {
    target,
    backend,
    client(interceptors = []) {
      const c = new Ctor(target, credentials.createInsecure(), { interceptors });
      clients.push(c);
      return c as never;
    },
    call(client, req = { id: 1 }, options = {}) {
      return new Promise((resolve) => {
        (client as unknown as Running['client'] extends (...a: never[]) => infer C ? C : never).get(req, options, (e, value) => {
          resolve(e ? { code: e.code, details: e.details } : { code: status.OK, value });
        });
      });
    },
    async stop() {
      for (const c of clients) c.close();
      server.forceShutdown();
    },
  };
}
