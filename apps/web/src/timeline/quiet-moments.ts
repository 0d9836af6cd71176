/** What counts as the reader doing something: keys, clicks, wheel and touch anywhere on the page. */
const INPUT_EVENTS = ["keydown", "pointerdown", "wheel", "touchstart"] as const;

/**
 * Moments without input, for work the reader is not waiting for (the rest of a large timeline): `moment()`
 * resolves once nothing happened for `quietMs` — no input, and no `touch()` (something just drawn) — or after
 * `maxWaitMs` regardless, so a reader who keeps typing still gets the rest.
 */
export class QuietMoments {
  private readonly quietMs: number;
  private readonly maxWaitMs: number;
  private readonly now: () => number;
  private readonly target: Pick<EventTarget, "addEventListener" | "removeEventListener"> | null;
  private last: number;
  private readonly onInput = () => this.touch();

  constructor(
    quietMs: number,
    maxWaitMs: number,
    options: { now?: () => number; target?: Pick<EventTarget, "addEventListener" | "removeEventListener"> | null } = {},
  ) {
    this.quietMs = quietMs;
    this.maxWaitMs = maxWaitMs;
    this.now = options.now ?? (() => performance.now());
    this.target = options.target === undefined ? (typeof window === "undefined" ? null : window) : options.target;
    this.last = Number.NEGATIVE_INFINITY;
    for (const type of INPUT_EVENTS) this.target?.addEventListener(type, this.onInput, { capture: true, passive: true });
  }

  /** Something happened now: the next quiet moment is `quietMs` from here. */
  touch(): void {
    this.last = this.now();
  }

  /** How long from now until a quiet moment, given it has been waited for since `since` (0: it is one now). */
  remaining(since: number): number {
    const now = this.now();
    return Math.max(0, Math.min(this.last + this.quietMs, since + this.maxWaitMs) - now);
  }

  /** Resolves at the next quiet moment (at once when `signal` aborts). */
  async moment(signal: AbortSignal): Promise<void> {
    const since = this.now();
    for (let wait = this.remaining(since); wait > 0 && !signal.aborted; wait = this.remaining(since)) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, wait);
        function done() {
          clearTimeout(timer);
          signal.removeEventListener("abort", done);
          resolve();
        }
        signal.addEventListener("abort", done, { once: true });
      });
    }
  }

  stop(): void {
    for (const type of INPUT_EVENTS) this.target?.removeEventListener(type, this.onInput, { capture: true });
  }
}
