export { degrade, DegradePolicy } from './degrade.js';
export { decisionTree, DecisionTree, DecisionTreeOptionsSchema, type DecisionTreeOptions } from './decision-tree.js';
export { loadShedder, LoadShedder, ShedderPermit } from './load-shedder.js';
export {
  DegradeOptionsSchema,
  LoadShedderOptionsSchema,
  type DegradeOptions,
  type DegradeHandler,
  type DegradeInfo,
  type DegradePredicate,
  type LoadShedderOptions,
} from './options.js';
export { healthOf, processCpu, toSignal, type Signal, type SignalSource } from './signals.js';
