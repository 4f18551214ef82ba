import { z } from 'zod';

/** Bucket bounds (seconds) of a duration histogram: at least one, positive, increasing. */
export const bucketsSchema = z
  .array(z.number().positive().finite())
  .min(1)
  .refine((b) => b.every((v, i) => i === 0 || v > b[i - 1]!), { message: 'expected increasing bucket bounds' });
