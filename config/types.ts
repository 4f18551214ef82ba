/** What a named handler answers: its return type, awaited. */
type AnswerOfHandler<F> = F extends (...args: never[]) => infer R ? Awaited<R> : never;

type Named<H, K> = K extends keyof H ? AnswerOfHandler<H[K]> : never;

/** The answer a policy entry adds, from the handler names it holds. */
export type EntryAnswer<E, H> = E extends { type: 'fallback'; handler: infer K }
  ? Named<H, K>
  : E extends { type: 'fallbackChain'; handlers: readonly (infer K)[] }
    ? Named<H, K>
    : E extends { type: 'degrade'; to: infer K }
      ? Named<H, K>
      : E extends { type: 'chaos'; result: infer K }
        ? Named<H, K>
        : never;

/** The answer a strategy config adds, from the handler names it holds. */
export type StrategyAnswer<C, H> =
  | (C extends { fallback: infer K } ? Named<H, K> : never)
  | (C extends { fallbacks: readonly (infer K)[] } ? Named<H, K> : never)
  | (C extends { to: infer K } ? Named<H, K> : never);

/**
 * The answer type of a pipeline built from config `C` with handlers `H`:
 * the union of what the handlers its fallback-like entries name return.
 */
export type ConfigAnswer<C, H> = C extends { policies: readonly (infer E)[] }
  ? EntryAnswer<E, H>
  : C extends { strategy: string }
    ? StrategyAnswer<C, H>
    : unknown;
