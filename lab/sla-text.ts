import { availabilityCheck, availabilityCheckText } from './availability-check.js';
import { tripCheck, tripCheckText } from './dynamic-check.js';
import { retryCheck, retryCheckText } from './retry-check.js';
import { rtoCheck, rtoCheckLine } from './rto-check.js';
import type { SeedFile } from './seeds.js';
import { rtoCells } from './table.js';

/** One sentence per SLA formula checked against the lab (results.json's `slaChecks`, the docs' list). */
export interface SlaSentences {
  readonly rtoMax: string;
  readonly combinedAvailability: string;
  readonly sloRetryBudget: string;
  readonly dynamicThreshold: string;
}

/** Each SLA formula's check on `file`, as one sentence with its figures and error. */
export function slaSentences(file: SeedFile): SlaSentences {
  return {
    rtoMax: rtoCheckLine(rtoCheck(rtoCells(file))),
    combinedAvailability: availabilityCheckText(availabilityCheck(file)),
    sloRetryBudget: retryCheckText(retryCheck(file)),
    dynamicThreshold: tripCheckText(tripCheck(file)),
  };
}
