/** Output waits this long for more before it is sent: a burst goes as one message, a keystroke's echo is not delayed noticeably. */
export const FLUSH_DELAY_MS = 4;
/** A batch is sent at once when it reaches this size. */
export const MAX_BATCH_CHARS = 64 * 1024;
/** Above this much unacknowledged output the pty is paused; below the low mark it is resumed. */
export const HIGH_WATER_CHARS = 512 * 1024;
export const LOW_WATER_CHARS = 128 * 1024;

type FlowControl = { pause(): void; resume(): void };

type TerminalOutputFlowOptions = {
  send: (data: string) => void;
  setTimer?: (callback: () => void, ms: number) => unknown;
  clearTimer?: (timer: unknown) => void;
};

/**
 * A terminal's output on its way from the pty to a client over the worker protocol: batched (a few
 * milliseconds, or up to 64 K characters), and flow-controlled by the client's acknowledgements, so a
 * client or a socket that cannot keep up makes the shell wait instead of making buffers grow.
 */
export class TerminalOutputFlow {
  readonly #send: (data: string) => void;
  readonly #setTimer: (callback: () => void, ms: number) => unknown;
  readonly #clearTimer: (timer: unknown) => void;
  #chunks: string[] = [];
  #buffered = 0;
  #unacknowledged = 0;
  #timer: unknown;
  #control: FlowControl | undefined;
  #paused = false;
  #disposed = false;

  constructor(options: TerminalOutputFlowOptions) {
    this.#send = options.send;
    this.#setTimer = options.setTimer ?? ((callback, ms) => setTimeout(callback, ms));
    this.#clearTimer = options.clearTimer ?? ((timer) => clearTimeout(timer as ReturnType<typeof setTimeout>));
  }

  /** Nothing is sent before this (the client first hears that the terminal opened); `control` pauses and resumes the pty. */
  start(control: FlowControl): void {
    this.#control = control;
    if (this.#buffered > 0) this.#schedule();
  }

  push(data: string): void {
    // Output after the exit was reported (node-pty may deliver some late) has no call left to go to.
    if (data === "" || this.#disposed) return;
    this.#chunks.push(data);
    this.#buffered += data.length;
    if (this.#control === undefined) return;
    if (this.#buffered >= MAX_BATCH_CHARS) this.flush();
    else this.#schedule();
  }

  /** Sends what is waiting now (before the exit is reported, say). */
  flush(): void {
    if (this.#timer !== undefined) this.#clearTimer(this.#timer);
    this.#timer = undefined;
    if (this.#buffered === 0) return;
    const data = this.#chunks.join("");
    this.#chunks = [];
    this.#buffered = 0;
    this.#unacknowledged += data.length;
    this.#send(data);
    if (!this.#paused && this.#unacknowledged > HIGH_WATER_CHARS && this.#control !== undefined) {
      this.#paused = true;
      this.#control.pause();
    }
  }

  acknowledge(chars: number): void {
    this.#unacknowledged = Math.max(0, this.#unacknowledged - chars);
    if (this.#paused && this.#unacknowledged <= LOW_WATER_CHARS) {
      this.#paused = false;
      this.#control?.resume();
    }
  }

  get unacknowledged(): number {
    return this.#unacknowledged;
  }

  get paused(): boolean {
    return this.#paused;
  }

  dispose(): void {
    this.#disposed = true;
    if (this.#timer !== undefined) this.#clearTimer(this.#timer);
    this.#timer = undefined;
  }

  #schedule(): void {
    if (this.#timer !== undefined) return;
    this.#timer = this.#setTimer(() => {
      this.#timer = undefined;
      this.flush();
    }, FLUSH_DELAY_MS);
  }
}
