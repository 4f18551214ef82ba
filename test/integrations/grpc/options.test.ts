import { describe, expect, it } from 'vitest';
import { parseOptions } from '../../../lib/schemas.js';
import { ClientInterceptorOptionsSchema, ServerInterceptorOptionsSchema } from '../../../integrations/grpc/options.js';
import { issuesOf } from '../../helpers/config-issues.js';

const source = { name: 's', allow: () => ({ success() {}, failure() {}, release() {} }) };
const sourceFor = () => source;
const ONE = 'give exactly one of source and sourceFor';

describe('ServerInterceptorOptionsSchema', () => {
  const check = (input: unknown) => parseOptions(ServerInterceptorOptionsSchema, input, 'grpc.serverInterceptor');

  it('one source or one sourceFor, 1,000 method names at most', () => {
    expect(check({ source })).toEqual({ source, maxKeys: 1_000 });
    const isFailure = () => true;
    expect(check({ sourceFor, maxKeys: 5, isFailure })).toEqual({ sourceFor, maxKeys: 5, isFailure });
  });

  it('exactly one of source and sourceFor, named at source', () => {
    expect(issuesOf(() => check({}))).toEqual([{ path: 'source', message: ONE }]);
    expect(issuesOf(() => check({ source, sourceFor }))).toEqual([{ path: 'source', message: ONE }]);
  });

  it('each option’s own rule, and no other key (a server has no target)', () => {
    expect(issuesOf(() => check({ source: {} }))).toEqual([{ path: 'source', message: 'expected a permit source (an object with allow())' }]);
    expect(issuesOf(() => check({ sourceFor: 'x' }))).toEqual([{ path: 'sourceFor', message: 'expected a function' }]);
    expect(issuesOf(() => check({ source, isFailure: [14] }))).toEqual([{ path: 'isFailure', message: 'expected a function' }]);
    expect(issuesOf(() => check({ source, maxKeys: 0 })).map((i) => i.path)).toEqual(['maxKeys']);
    expect(issuesOf(() => check({ source, target: 'users:50051' }))).toEqual([{ path: 'target', message: 'unknown option' }]);
  });
});

describe('ClientInterceptorOptionsSchema', () => {
  const check = (input: unknown) => parseOptions(ClientInterceptorOptionsSchema, input, 'grpc.clientInterceptor');

  it('needs the channel target besides one source', () => {
    expect(check({ target: 'users:50051', sourceFor })).toEqual({ target: 'users:50051', sourceFor, maxKeys: 1_000 });
    expect(issuesOf(() => check({ source }))).toEqual([{ path: 'target', message: 'Invalid input: expected string, received undefined' }]);
    expect(issuesOf(() => check({ source, target: '' }))).toEqual([{ path: 'target', message: 'expected the channel target' }]);
  });

  it('exactly one of source and sourceFor, as the server’s', () => {
    expect(issuesOf(() => check({ target: 'users:50051' }))).toEqual([{ path: 'source', message: ONE }]);
    expect(issuesOf(() => check({ target: 'users:50051', source, sourceFor }))).toEqual([{ path: 'source', message: ONE }]);
  });
});
