import { describe, expect, it } from 'vitest';
import { OtelOptionsSchema } from '../../../integrations/otel/options.js';
import { toConfigIssues } from '../../../lib/schemas.js';

const issues = (input: unknown) => {
  const r = OtelOptionsSchema.safeParse(input);
  return r.success ? [] : toConfigIssues(r.error);
};

describe('OtelOptionsSchema', () => {
  it('fills in the defaults', () => {
    expect(OtelOptionsSchema.parse({})).toEqual({ prefix: 'breakwater.', attributes: {}, perKey: false });
  });

  it('keeps a meter, constant attributes with free names, increasing buckets and perKey', () => {
    const meter = { createCounter: () => undefined };
    const o = OtelOptionsSchema.parse({ meter, prefix: 'svc.', attributes: { service: 'checkout', policy: 'p' }, buckets: [0.01, 0.1, 1], perKey: true });
    expect(o).toEqual({ meter, prefix: 'svc.', attributes: { service: 'checkout', policy: 'p' }, buckets: [0.01, 0.1, 1], perKey: true });
  });

  it('refuses taken attribute names, each at its own path', () => {
    expect(issues({ attributes: { 'breakwater.policy.name': 'x', 'error.type': 'y', ok: 'z' } })).toEqual([
      { path: 'attributes.breakwater.policy.name', message: 'expected a free attribute name (breakwater.* and error.type are taken)' },
      { path: 'attributes.error.type', message: 'expected a free attribute name (breakwater.* and error.type are taken)' },
    ]);
  });

  it('refuses a meter that is not one, buckets out of order, a non-boolean perKey and unknown options', () => {
    expect(issues({ meter: {} })).toEqual([{ path: 'meter', message: 'expected an OpenTelemetry Meter' }]);
    expect(issues({ buckets: [1, 0.5] })).toEqual([{ path: 'buckets', message: 'expected increasing bucket bounds' }]);
    expect(issues({ perKey: 'yes' }).map((i) => i.path)).toEqual(['perKey']);
    expect(issues({ unit: 's' })).toEqual([{ path: 'unit', message: 'unknown option' }]);
  });
});
