import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { AlwaysOffSampler, BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll } from 'vitest';

/**
 * A test file's tracing: a tracer whose finished spans land in `exporter`, a tracer that samples nothing, and the
 * AsyncLocalStorage context manager registered for the file (removed after it).
 */
export function useTracing() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  beforeAll(() => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  });
  afterAll(async () => {
    context.disable();
    await provider.shutdown();
  });
  return { exporter, tracer: provider.getTracer('test'), silent: new BasicTracerProvider({ sampler: new AlwaysOffSampler() }).getTracer('unsampled') };
}
