// @ts-check
// A typedoc plugin: puts every top-level export of the API site into a
// category by the folder of the file that declares it, so the reference is
// grouped (Core, Policies, Breakers, ...) without a `@category` tag on each
// export. An explicit `@category` tag wins.
import { Comment, CommentTag, Converter, ReflectionKind } from 'typedoc';

/** First matching path fragment decides. */
const CATEGORIES = [
  ['/policies/timeout/', 'Timeout and retry'],
  ['/policies/retry/', 'Timeout and retry'],
  ['/policies/fallback/', 'Fallback and degradation'],
  ['/policies/degrade/', 'Fallback and degradation'],
  ['/policies/load-shedder/', 'Fallback and degradation'],
  ['/lib/signals.ts', 'Fallback and degradation'],
  ['/policies/sre-breaker/', 'Breakers'],
  ['/policies/adaptive-breaker/', 'Breakers'],
  ['/policies/circuit-breaker/', 'Breakers'],
  ['/policies/breaker-registry/', 'Breakers'],
  ['/policies/breaker/', 'Breakers'],
  ['/lib/window.ts', 'Breakers'],
  ['/lib/permit.ts', 'Breakers'],
  ['/policies/bulkhead/', 'Bulkhead and rate limiting'],
  ['/policies/rate-limiter/', 'Bulkhead and rate limiting'],
  ['/policies/adaptive-limiter/', 'Bulkhead and rate limiting'],
  ['/policies/hedge/', 'Hedging'],
  ['/policies/cache/', 'Cache'],
  ['/policies/idempotent/', 'Idempotency'],
  ['/policies/chaos/', 'Chaos and testing'],
  ['/lib/testing.ts', 'Chaos and testing'],
  ['/lib/errors.ts', 'Errors'],
  ['/lib/events.ts', 'Events'],
  ['/config/strategies/', 'Strategies'],
  ['/config/write-behind/', 'Strategies'],
  ['/config/', 'Config'],
  ['/integrations/redis/', 'Redis'],
  ['/lib/sla.ts', 'SLA and metrics'],
  ['/lib/histogram.ts', 'SLA and metrics'],
  ['/integrations/', 'Integrations'],
  ['/lib/', 'Core'],
  ['/api/', 'Core'],
];

/** @param {import('typedoc').Application} app */
export function load(app) {
  // CategoryPlugin sorts at RESOLVE_END with priority -200; tag before it.
  app.converter.on(
    Converter.EVENT_RESOLVE_END,
    (context) => {
      const project = context.project;
      const roots = project.children?.some((c) => c.kindOf(ReflectionKind.Module)) ? project.children : [project];
      for (const root of roots ?? []) {
        for (const child of root.children ?? []) {
          if (hasCategory(child)) continue;
          const file = project.getSymbolIdFromReflection(child)?.fileName?.replaceAll('\\', '/') ?? '';
          const category = CATEGORIES.find(([part]) => file.includes(part))?.[1];
          if (category === undefined) continue;
          const target = child.signatures?.[0] ?? child;
          target.comment ??= new Comment();
          target.comment.blockTags.push(new CommentTag('@category', [{ kind: 'text', text: category }]));
        }
      }
    },
    0,
  );
}

/** @param {import('typedoc').DeclarationReflection} r */
function hasCategory(r) {
  const tagged = (/** @type {Comment | undefined} */ c) => c?.blockTags.some((t) => t.tag === '@category') === true;
  return tagged(r.comment) || (r.signatures ?? []).some((s) => tagged(s.comment));
}
