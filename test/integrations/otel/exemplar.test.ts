import { describe, expect, it } from 'vitest';
import { traceExemplar } from '../../../integrations/otel/index.js';
import { useTracing } from '../../helpers/tracing.js';

const { tracer, silent } = useTracing();

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
