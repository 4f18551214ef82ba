import { expectAssignable, expectError, expectType } from 'tsd';
import { Registry } from 'prom-client';
import express from 'express';
import Fastify from 'fastify';
import type { Interceptor, ServerInterceptor } from '@grpc/grpc-js';
import {
  bulkhead,
  circuitBreaker,
  rateLimiter,
  sreBreaker,
  tokenBucket,
  fallback,
  logEvents,
  pipe,
  policy,
  resilientFetch,
  retry,
  timeout,
  HttpStatusError,
  type EventLogger,
  type WatchHandle,
} from '../../dist/index.js';
import { registerMetrics } from '../../dist/prometheus.js';
import { registerOtelMetrics } from '../../dist/otel.js';
import { policySource, protectExpress, protectFastify, protectHandler, type AsyncPermitSource, type PermitSource } from '../../dist/http.js';
import { clientInterceptor, serverInterceptor } from '../../dist/grpc.js';

// resilientFetch keeps what the policy may answer instead of a Response
expectType<Promise<Response>>(resilientFetch(policy().timeout(100).retry())('http://x'));
expectType<Promise<Response | 'offline'>>(resilientFetch(pipe(retry(), fallback(() => 'offline' as const)))('http://x'));
expectType<Promise<Response>>(resilientFetch(timeout(100), fetch, { isFailure: (r) => r.status >= 500 })(new Request('http://x'), { execute: { timeout: 5 } }));
expectError(resilientFetch(retry(), fetch, { isFailure: (status: number) => status > 1 }));
expectType<number>(new HttpStatusError(new Response(), 1, '').status);

// metrics and logs take a policy or a pipeline, and return a disposable handle
expectType<WatchHandle>(registerMetrics(pipe(timeout(10), retry()), { registry: new Registry(), labels: { service: 's' } }));
expectType<WatchHandle>(registerOtelMetrics(retry(), { attributes: { service: 's' } }));
expectType<WatchHandle>(logEvents(retry(), console as EventLogger, { rateLimitMs: 100 }));
expectError(registerMetrics(retry(), { labels: { service: 1 } }));
expectError(logEvents(retry(), { info() {} }));
expectAssignable<Disposable>(registerMetrics(retry()));

// the HTTP guards fit node:http, Express and Fastify as they are
declare const source: PermitSource;
const app = express();
app.get('/users/:id', protectExpress({ sourceFor: () => source }), (req, res) => {
  expectType<string>(req.params.id);
  res.end();
});
app.use(protectExpress(source));
const f = Fastify();
void f.register(protectFastify(source));
expectAssignable<(req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => unknown>(protectHandler(() => {}, source));
expectError(protectHandler(() => {}, { source, retryAfterMs: '1' }));

// the gRPC interceptors are grpc-js interceptors
expectAssignable<Interceptor>(clientInterceptor({ target: 'users:50051', source }));
expectAssignable<ServerInterceptor>(serverInterceptor({ sourceFor: () => source }));
expectError(clientInterceptor({ source }));

// breakwater's own breakers and shedders are permit sources; any policy becomes one through policySource
expectAssignable<PermitSource>(sreBreaker());
expectAssignable<PermitSource>(circuitBreaker({ strategy: 'errorRatio' }));
expectType<AsyncPermitSource>(policySource(rateLimiter({ algorithm: tokenBucket({ rate: 10 }) })));
protectHandler(() => {}, policySource(bulkhead({ limit: 2 })));
expectError(clientInterceptor({ target: 't', source: policySource(bulkhead({ limit: 2 })) }));
