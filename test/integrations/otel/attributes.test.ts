import { describe, expect, it } from 'vitest';
import { ATTR_ERROR_TYPE, ATTR_KEY, ATTR_OUTCOME, ATTR_POLICY, ATTR_STATE, isTakenAttribute } from '../../../integrations/otel/attributes.js';

describe('the attribute names', () => {
  it('live in the breakwater. namespace, but for the conventions’ error.type', () => {
    expect([ATTR_POLICY, ATTR_OUTCOME, ATTR_STATE, ATTR_KEY, ATTR_ERROR_TYPE]).toEqual([
      'breakwater.policy.name',
      'breakwater.call.outcome',
      'breakwater.breaker.state',
      'breakwater.policy.key',
      'error.type',
    ]);
  });
});

describe('isTakenAttribute', () => {
  it('takes the whole breakwater. namespace and error.type', () => {
    for (const name of ['breakwater.policy.name', 'breakwater.anything', 'error.type']) expect(isTakenAttribute(name)).toBe(true);
  });

  it('leaves every other name free, the bare old names included', () => {
    for (const name of ['policy', 'result', 'state', 'key', 'service', 'breakwater', 'breakwaterx.a', 'error.message', 'error']) expect(isTakenAttribute(name)).toBe(false);
  });
});
