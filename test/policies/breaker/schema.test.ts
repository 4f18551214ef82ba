/**
 * The plain option checks of the breakers' shared window snapshot and the zod schemas behind
 * `breakwater/config` agree: each case goes through both, and both accept it
 * with the same result or reject it with the same issues (path and message).
 * The type pins keep each written-out options interface equal to its schema's
 * input type.
 */
import { it } from 'vitest';
import { windowSnapshotRule } from '../../../policies/breaker/options.js';
import { windowSnapshotSchema } from '../../../policies/breaker/schema.js';
import { parity } from '../../helpers/parity.js';

const window = { origin: 0, bucketMs: 250, size: 40, head: -1, sums: [0, 0, 0], counts: null };
const counted = { origin: 0, bucketMs: 500, size: 2, head: 1, sums: [3, 1, 0], counts: [1, 0, 0, 2, 1, 0] };
parity('windowSnapshot', windowSnapshotRule, windowSnapshotSchema, [window, counted], [
  { ...window, sums: [1, 0, 0] },
  { ...counted, counts: [1, 0, 0] },
  { ...counted, sums: [2, 1, 1] },
  { ...counted, sums: [1, 2] },
  { ...counted, sums: [1, 2, 3, 4] },
  { ...counted, counts: [1, -1, 'x', 0, 0, 0] },
  { ...counted, head: -2, size: 0, bucketMs: 0, origin: 'x' },
  { ...counted, counts: 'x' },
]);
