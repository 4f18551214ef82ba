import type { Observable } from 'rxjs';
import type { PolicyEvent } from '../../lib/events.js';

export { collect } from './breakers.js';

/** Collects the events of `source` but its `outcome`s: what a policy says of itself. */
export function own(source: { events$: Observable<PolicyEvent> }): PolicyEvent[] {
  const seen: PolicyEvent[] = [];
  source.events$.subscribe((e) => {
    if (e.type !== 'outcome') seen.push(e);
  });
  return seen;
}
