import { z } from 'zod';

/** A finite rate per second greater than zero. */
export const perSecond = z
  .number({ message: 'expected a number per second' })
  .refine((n) => Number.isFinite(n), { message: 'expected a finite number' })
  .refine((n) => n > 0, { message: 'expected a number greater than 0' });

/** An integer >= 1. */
export const positiveInt = z
  .number({ message: 'expected an integer >= 1' })
  .int({ message: 'expected an integer >= 1' })
  .min(1, { message: 'expected an integer >= 1' });

/** An integer >= 0. */
export const nonNegativeInt = z
  .number({ message: 'expected an integer >= 0' })
  .int({ message: 'expected an integer >= 0' })
  .min(0, { message: 'expected an integer >= 0' });

/** An integer in [`min`, `max`]. */
export const intInRange = (min: number, max: number) => {
  const message = `expected an integer in [${min}, ${max}]`;
  return z.number({ message }).int({ message }).min(min, { message }).max(max, { message });
};
