export { degrade, DegradePolicy } from './degrade.js';
export { decisionTree, DecisionTree, type DecisionTreeOptions } from './decision-tree.js';
export type { DegradeOptions, DegradeHandler, DegradeInfo, DegradePredicate } from './options.js';
export type { DegradedEvent } from './events.js';
