export { degrade, DegradePolicy } from './degrade.js';
export { decisionTree, DecisionTree, DecisionTreeOptionsSchema, type DecisionTreeOptions } from './decision-tree.js';
export {
  DegradeOptionsSchema,
  type DegradeOptions,
  type DegradeHandler,
  type DegradeInfo,
  type DegradePredicate,
} from './options.js';
export type { DegradedEvent } from './events.js';
