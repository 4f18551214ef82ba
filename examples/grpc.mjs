// A gRPC client and server with breakwater's interceptors (go-zero's failure
// codes): the server's method fails with UNAVAILABLE, the client's breaker
// opens and sheds calls without sending them, and recovers when the method heals.
// Run: npm run build && node examples/grpc.mjs
import { Server, ServerCredentials, credentials, makeGenericClientConstructor, status } from '@grpc/grpc-js';
import { circuitBreaker } from 'breakwater';
import { clientInterceptor, serverInterceptor } from 'breakwater/grpc';

const json = {
  serialize: (v) => Buffer.from(JSON.stringify(v)),
  deserialize: (b) => JSON.parse(b.toString()),
};
const definition = {
  get: {
    path: '/demo.Users/Get',
    requestStream: false,
    responseStream: false,
    requestSerialize: json.serialize,
    requestDeserialize: json.deserialize,
    responseSerialize: json.serialize,
    responseDeserialize: json.deserialize,
  },
};

let healthy = false;
let served = 0;
const server = new Server({ interceptors: [serverInterceptor({ sourceFor: (name) => circuitBreaker({ name, strategy: 'errorRatio', minRequests: 100 }) })] });
server.addService(definition, {
  get(call, callback) {
    served++;
    if (!healthy) return callback({ code: status.UNAVAILABLE, details: 'backend down' });
    callback(null, { id: call.request.id, name: 'Ada' });
  },
});
const port = await new Promise((resolve, reject) =>
  server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
);

const target = `127.0.0.1:${port}`;
const Users = makeGenericClientConstructor(definition, 'Users');
const client = new Users(target, credentials.createInsecure(), {
  interceptors: [clientInterceptor({ target, sourceFor: (name) => circuitBreaker({ name, strategy: 'consecutiveFailures', threshold: 2, openMs: 150 }) })],
});
const get = (id) =>
  new Promise((resolve) => client.get({ id }, (err, reply) => resolve(err ? `${status[err.code]}${err.details === 'circuit breaker is open' ? ' (shed)' : ''}` : reply.name)));

const sick = [];
for (let i = 0; i < 4; i++) sick.push(await get(i));
const servedWhileSick = served;
console.log(`while sick: ${sick.join(', ')} (server saw ${servedWhileSick} calls)`);
healthy = true;
await new Promise((resolve) => setTimeout(resolve, 200));
const healed = [await get(7), await get(8)];
console.log(`after it heals: ${healed.join(', ')}`);
client.close();
server.forceShutdown();
if (servedWhileSick !== 2 || !sick[2].includes('shed') || healed.join() !== 'Ada,Ada') process.exit(1);
