import { Notifier } from "@cairn/core";
import type { TerminalOutput } from "../router/types.ts";

export const DEFAULT_RETAINED_CHARS = 256 * 1024;

type Entry = { seq: number; output: TerminalOutput; size: number };

/**
 * A terminal's output as numbered chunks, the newest `retainedChars` kept for reconnecting tabs.
 * Readers pull by seq, so a slow reader never makes the log grow; one that fell behind the retained
 * window continues from the oldest chunk still held.
 */
export class OutputLog {
  private readonly entries: Entry[] = [];
  private readonly listeners = new Set<() => void>();
  private readonly retainedChars: number;
  private retained = 0;
  private seq = 0;
  ended = false;

  constructor(retainedChars = DEFAULT_RETAINED_CHARS) {
    this.retainedChars = retainedChars;
  }

  append(output: TerminalOutput): void {
    const size = output.type === "data" ? output.data.length : 1;
    this.seq += 1;
    this.entries.push({ seq: this.seq, output, size });
    this.retained += size;
    while (this.retained > this.retainedChars && this.entries.length > 1) this.retained -= this.entries.shift()!.size;
    this.notify();
  }

  /** No more output will come (the shell exited). */
  end(): void {
    this.ended = true;
    this.notify();
  }

  get listenerCount(): number {
    return this.listeners.size;
  }

  async *read(afterSeq: number, signal: AbortSignal): AsyncGenerator<{ seq: number; output: TerminalOutput }> {
    const wakeUps = new Notifier({ notified: true });
    const listener = () => wakeUps.notify();
    this.listeners.add(listener);
    let cursor = afterSeq > this.seq ? 0 : afterSeq;
    try {
      while (!signal.aborted) {
        if (!wakeUps.pending && this.ended) return;
        if (!(await wakeUps.wait(signal))) continue;
        // A copy: appends during a yield shift the array.
        const first = this.entries.findIndex((entry) => entry.seq > cursor);
        for (const entry of first < 0 ? [] : this.entries.slice(first)) {
          cursor = entry.seq;
          yield { seq: entry.seq, output: entry.output };
          if (signal.aborted) return;
        }
      }
    } finally {
      this.listeners.delete(listener);
    }
  }

  private notify(): void {
    for (const listener of [...this.listeners]) listener();
  }
}
