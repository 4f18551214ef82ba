import type { Clock, TimerHandle } from '../../lib/clock.js';

/**
 * Keeps a claim's lease alive while its operation runs (`renewLease`): every
 * `everyMs` it asks the store to extend the lease, until stopped or until
 * the store says the claim is no longer ours. A failed extension is tried
 * again at the next tick; the lease still has time left.
 */
export class LeaseRenewer {
  private handle: TimerHandle = undefined;
  private stopped = false;

  constructor(
    private readonly clock: Clock,
    private readonly everyMs: number,
    private readonly extend: () => Promise<boolean>,
  ) {
    this.arm();
  }

  /** Stops renewing; the lease then runs out on its own unless the claim is settled. */
  stop(): void {
    this.stopped = true;
    if (this.handle !== undefined) this.clock.clearTimeout(this.handle);
    this.handle = undefined;
  }

  private arm(): void {
    if (!this.stopped) this.handle = this.clock.setTimeout(this.tick, this.everyMs);
  }

  private readonly tick = (): void => {
    this.handle = undefined;
    this.extend().then(
      (ours) => {
        if (ours) this.arm();
      },
      () => this.arm(),
    );
  };
}
