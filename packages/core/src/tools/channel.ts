const NOTHING: readonly never[] = Object.freeze([]);

/** An unbounded async queue: many producers push, one consumer iterates until `close()`. */
export class Channel<T> implements AsyncIterable<T> {
  private readonly items: T[] = [];
  private waiting: (() => void) | null = null;
  private closed = false;

  push(item: T): void {
    if (this.closed) return;
    this.items.push(item);
    this.wake();
  }

  /** Items pushed so far and not yet taken, without waiting. Only for a consumer that does not iterate. */
  takeReady(): T[] {
    // Called once per streamed delta: stay allocation-free when nothing is waiting.
    if (this.items.length === 0) return NOTHING as unknown as T[];
    return this.items.splice(0, this.items.length);
  }

  close(): void {
    this.closed = true;
    this.wake();
  }

  private wake(): void {
    const waiting = this.waiting;
    this.waiting = null;
    waiting?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    let head = 0;
    while (true) {
      if (head < this.items.length) {
        const item = this.items[head]!;
        head++;
        if (head > 1024) {
          this.items.splice(0, head);
          head = 0;
        }
        yield item;
        continue;
      }
      if (this.closed) return;
      await new Promise<void>((resolve) => {
        this.waiting = resolve;
      });
    }
  }
}
