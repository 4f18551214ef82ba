/** One write waiting in a write-behind queue: plain JSON, so it survives a restart. */
export interface QueuedWrite {
  /** Unique id; also the idempotency key `deliver` sees as `ctx.key`. */
  readonly id: string;
  /** Ordering key: writes of one key are delivered in the order they were written. */
  readonly key: string;
  /** The payload, as JSON. */
  readonly payload: unknown;
  /** Clock time the write was queued. */
  readonly queuedAt: number;
}

/**
 * Where a write-behind writer keeps what it could not deliver. A write is
 * safe once `push` has resolved: it stays until `ack`.
 */
export interface WriteQueue {
  /** Appends a write at the tail. */
  push(item: QueuedWrite): Promise<void>;
  /** The oldest `limit` writes, oldest first. */
  peek(limit: number): Promise<QueuedWrite[]>;
  /** Removes a delivered write; harmless if it is gone. */
  ack(id: string): Promise<void>;
}

/** True for a {@link WriteQueue}. */
export function isWriteQueue(value: unknown): value is WriteQueue {
  const q = value as WriteQueue;
  return typeof value === 'object' && value !== null && typeof q.push === 'function' && typeof q.peek === 'function' && typeof q.ack === 'function';
}

class MemoryWriteQueue implements WriteQueue {
  private readonly items: QueuedWrite[] = [];

  async push(item: QueuedWrite): Promise<void> {
    // A deep copy through JSON: what is queued is what a durable store would keep.
    this.items.push({ ...item, payload: JSON.parse(JSON.stringify(item.payload ?? null)) });
  }

  async peek(limit: number): Promise<QueuedWrite[]> {
    return this.items.slice(0, limit);
  }

  async ack(id: string): Promise<void> {
    const i = this.items.findIndex((x) => x.id === id);
    if (i >= 0) this.items.splice(i, 1);
  }
}

/**
 * A write queue in this process's memory: the default. It holds only while
 * the process lives; use `redisWriteQueue` from `breakwater/redis` for writes
 * that must survive a restart.
 *
 * @example
 * ```ts
 * const writer = writeBehind({ deliver: saveOrder, store: memoryWriteQueue() });
 * ```
 */
export function memoryWriteQueue(): WriteQueue {
  return new MemoryWriteQueue();
}
