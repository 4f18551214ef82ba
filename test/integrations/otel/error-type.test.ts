import { describe, expect, it } from 'vitest';
import { BrokenCircuitError, TimeoutError } from '../../../lib/errors.js';
import { errorType, OTHER_ERROR_TYPE } from '../../../integrations/otel/error-type.js';

describe('errorType', () => {
  it("takes an error's name when it is more than plain Error", () => {
    expect(errorType(new TimeoutError('p'))).toBe('TimeoutError');
    expect(errorType(new BrokenCircuitError('p'))).toBe('BrokenCircuitError');
    expect(errorType(new RangeError('x'))).toBe('RangeError');
    expect(errorType(new DOMException('gone', 'AbortError'))).toBe('AbortError');
    // the name wins over a code: both are low-cardinality, the name is the class
    expect(errorType(Object.assign(new TypeError('x'), { code: 'ERR_INVALID_ARG_TYPE' }))).toBe('TypeError');
  });

  it("falls back to the error's code, string or integer", () => {
    expect(errorType(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }))).toBe('ECONNRESET');
    expect(errorType(Object.assign(new Error('unavailable'), { code: 14 }))).toBe('14');
    expect(errorType(Object.assign(new Error('x'), { code: 1.5 }))).toBe('Error');
    expect(errorType(Object.assign(new Error('x'), { code: '' }))).toBe('Error');
  });

  it('falls back to the constructor of a subclass that sets no name', () => {
    class PaymentDeclined extends Error {}
    expect(new PaymentDeclined('x').name).toBe('Error');
    expect(errorType(new PaymentDeclined('x'))).toBe('PaymentDeclined');
  });

  it('says Error for a plain Error and _OTHER for what names no type', () => {
    expect(errorType(new Error('x'))).toBe('Error');
    expect(OTHER_ERROR_TYPE).toBe('_OTHER');
    for (const v of [undefined, null, 'boom', 42, { status: 500 }, Object.create(null), { name: '' }, { name: 7 }]) expect(errorType(v)).toBe('_OTHER');
  });

  it('never throws, even for an error whose fields throw', () => {
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('no');
        },
      },
    );
    expect(errorType(hostile)).toBe('_OTHER');
  });
});
