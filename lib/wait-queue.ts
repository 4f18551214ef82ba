/** A node of a {@link WaitQueue}. */
export interface QueueNode {
  prev: QueueNode | undefined;
  next: QueueNode | undefined;
  /** Its turn has come. */
  grant(): void;
}

/** A FIFO of waiters, doubly linked so that a cancelled one leaves in O(1). */
export class WaitQueue {
  size = 0;
  private head: QueueNode | undefined = undefined;
  private tail: QueueNode | undefined = undefined;

  push(w: QueueNode): void {
    w.prev = this.tail;
    if (this.tail === undefined) this.head = w;
    else this.tail.next = w;
    this.tail = w;
    this.size++;
  }

  /** The oldest waiter, left in place. */
  get first(): QueueNode | undefined {
    return this.head;
  }

  /** The newest waiter, left in place. */
  get last(): QueueNode | undefined {
    return this.tail;
  }

  shift(): QueueNode | undefined {
    const w = this.head;
    if (w !== undefined) this.remove(w);
    return w;
  }

  remove(w: QueueNode): void {
    if (w.prev !== undefined) w.prev.next = w.next;
    else if (this.head === w) this.head = w.next;
    else return; // not queued
    if (w.next !== undefined) w.next.prev = w.prev;
    else this.tail = w.prev;
    w.prev = w.next = undefined;
    this.size--;
  }
}
