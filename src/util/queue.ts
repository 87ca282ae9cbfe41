// A bounded async queue: producers never block (a full queue drops and counts, as the kubelet's
// PLEG channel of 1000 does), one consumer iterates with `for await` until the queue is closed.

export class BoundedQueue<T> implements AsyncIterable<T> {
  private items: T[] = [];
  private waiter: ((r: IteratorResult<T>) => void) | undefined;
  private closed = false;
  /** Items dropped because the queue was full. */
  dropped = 0;

  constructor(readonly capacity: number) {}

  get length(): number {
    return this.items.length;
  }

  /** Adds an item; returns false (and counts a drop) when the queue is full or closed. */
  push(item: T): boolean {
    if (this.closed) return false;
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = undefined;
      w({ value: item, done: false });
      return true;
    }
    if (this.items.length >= this.capacity) {
      this.dropped++;
      return false;
    }
    this.items.push(item);
    return true;
  }

  close(): void {
    this.closed = true;
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = undefined;
      w({ value: undefined, done: true });
    }
  }

  next(): Promise<IteratorResult<T>> {
    const item = this.items.shift();
    if (item !== undefined) return Promise.resolve({ value: item, done: false });
    if (this.closed) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => (this.waiter = resolve));
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return { next: () => this.next() };
  }
}

/** Runs async sections one at a time, in call order. */
export class Mutex {
  private tail: Promise<void> = Promise.resolve();

  run<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.tail.then(fn);
    this.tail = result.then(
      () => {},
      () => {},
    );
    return result;
  }
}

/**
 * Runs async tasks at most `limit` at a time, the waiting ones in call order: `run(task)` settles as
 * the task does, once it got its turn.
 */
export class Limiter {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((r) => this.waiting.push(r));
    this.active++;
    try {
      return await task();
    } finally {
      this.active--;
      this.waiting.shift()?.();
    }
  }
}
