import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { AlwaysOffSampler, BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { traceExemplar } from '../../../integrations/otel/index.js';

const provider = new BasicTracerProvider();
const tracer = provider.getTracer('test');
const silent = new BasicTracerProvider({ sampler: new AlwaysOffSampler() }).getTracer('unsampled');

beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
});
afterAll(async () => {
  context.disable();
  await provider.shutdown();
});

describe('traceExemplar', () => {
  it('gives the active sampled span’s trace_id and span_id, and undefined otherwise', async () => {
    expect(traceExemplar()).toBeUndefined();
    await tracer.startActiveSpan('request', async (span) => {
      const c = span.spanContext();
      expect(traceExemplar()).toEqual({ trace_id: c.traceId, span_id: c.spanId });
      span.end();
    });
    await silent.startActiveSpan('unsampled', async (span) => {
      expect(traceExemplar()).toBeUndefined();
      span.end();
    });
  });
});
