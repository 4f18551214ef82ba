import { expectType } from 'tsd';
import { fromConfig, strategies, type ExecutionContext } from '../../dist/index.js';

interface User {
  id: string;
}
declare const getUser: (ctx: ExecutionContext) => Promise<User>;

expectType<Promise<User | null>>(strategies.standard({ fallback: () => null }).execute(getUser));
expectType<Promise<User | 'guest'>>(strategies.layeredBreakers({ fallback: async () => 'guest' as const }).execute(getUser));
expectType<Promise<User>>(strategies.failFast({ timeoutMs: 100 }).execute(getUser));

const guest = (): { id: 'guest' } => ({ id: 'guest' });
expectType<Promise<User | { id: 'guest' }>>(
  fromConfig({ policies: [{ type: 'timeout', ms: 100 }, { type: 'fallback', handler: 'guest' }] }, { guest }).execute(getUser),
);
expectType<Promise<User | 1 | 2>>(
  fromConfig({ policies: [{ type: 'fallbackChain', handlers: ['a', 'b'] }] }, { a: () => 1 as const, b: async () => 2 as const }).execute(getUser),
);
expectType<Promise<User | null>>(fromConfig({ strategy: 'standard', fallback: 'none' }, { none: () => null }).execute(getUser));
