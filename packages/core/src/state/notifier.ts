/**
 * The wake-up of one consumer loop that pulls its work from somewhere else (a bus by seq, a queue,
 * a map of pending changes): producers call `notify()`, the loop awaits `wait(signal)`.
 *
 * Level-triggered: a notification while nobody waits is kept as one flag, so no wake-up is lost
 * and a burst costs the loop one pass. `wait` resolves at once when notified since the last
 * `wait` (clearing it), else at the next `notify`, at `close`, or when `signal` aborts. One waiter
 * at a time. No timers and no Node built-ins.
 */
export class Notifier {
  private notified: boolean;
  private closed = false;
  private waiter: (() => void) | undefined;

  /** `notified: true` makes the first `wait` return at once (the loop reads what is there before waiting). */
  constructor(options: { notified?: boolean } = {}) {
    this.notified = options.notified ?? false;
  }

  /** Whether a notification is waiting to be taken by `wait`. */
  get pending(): boolean {
    return this.notified;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  notify(): void {
    this.notified = true;
    this.waiter?.();
  }

  /** No more notifications are coming: the waiter returns, and every later `wait` returns at once. */
  close(): void {
    this.closed = true;
    this.waiter?.();
  }

  /** True when it was notified (and clears that); false when it returns because it is closed or `signal` aborted. */
  async wait(signal?: AbortSignal): Promise<boolean> {
    if (this.waiter) throw new Error("Notifier.wait: another wait is already pending");
    if (!this.notified && !this.closed && !signal?.aborted) {
      await new Promise<void>((resolve) => {
        const onAbort = () => this.waiter?.();
        signal?.addEventListener("abort", onAbort, { once: true });
        this.waiter = () => {
          this.waiter = undefined;
          signal?.removeEventListener("abort", onAbort);
          resolve();
        };
      });
    }
    const notified = this.notified;
    this.notified = false;
    return notified;
  }
}
