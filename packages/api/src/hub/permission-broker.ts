import type { PermissionAnswer } from "@cairn/core/schema";
import type { PermissionPrompter, PermissionRequest } from "@cairn/core";

type Pending = {
  request: PermissionRequest;
  answer: PermissionAnswer | undefined;
  resolve: ((answer: PermissionAnswer) => void) | undefined;
};

/**
 * The web prompter for one session: a question waits here until the first `respond` for it; every
 * later answer (another tab, a double click) is refused. The question itself reaches the tabs as the
 * loop's `permission-request` event; `pending()` lets a tab that opens later see it too.
 */
export class PermissionBroker implements PermissionPrompter {
  private readonly waiting = new Map<string, Pending>();
  private readonly listeners = new Set<() => void>();

  /** Told whenever the questions waiting for an answer may have changed. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  ask(request: PermissionRequest, signal: AbortSignal): Promise<PermissionAnswer> {
    const entry = this.entry(request);
    if (entry.answer) {
      this.forget(request.requestId);
      return Promise.resolve(entry.answer);
    }
    return new Promise<PermissionAnswer>((resolve, reject) => {
      const onAbort = () => {
        this.forget(request.requestId);
        reject(signal.reason instanceof Error ? signal.reason : new Error("The run was interrupted"));
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener("abort", onAbort, { once: true });
      entry.resolve = (answer) => {
        signal.removeEventListener("abort", onAbort);
        this.forget(request.requestId);
        resolve(answer);
      };
    });
  }

  /** Registers a question seen as an event before the loop asked (the two race). */
  announce(request: PermissionRequest): void {
    this.entry(request);
  }

  /** True when this answer was the first for a question still open. */
  respond(requestId: string, answer: PermissionAnswer): boolean {
    const entry = this.waiting.get(requestId);
    if (!entry || entry.answer) return false;
    entry.answer = answer;
    if (entry.resolve) entry.resolve(answer);
    this.changed();
    return true;
  }

  /** Forgets a question the loop has resolved (answered, or given up on an interrupt). */
  settle(requestId: string): void {
    this.forget(requestId);
  }

  pending(): PermissionRequest[] {
    return [...this.waiting.values()].filter((entry) => !entry.answer).map((entry) => entry.request);
  }

  clear(): void {
    this.waiting.clear();
    this.changed();
  }

  private entry(request: PermissionRequest): Pending {
    let entry = this.waiting.get(request.requestId);
    if (!entry) {
      entry = { request, answer: undefined, resolve: undefined };
      this.waiting.set(request.requestId, entry);
      this.changed();
    }
    return entry;
  }

  private forget(requestId: string): void {
    if (this.waiting.delete(requestId)) this.changed();
  }

  private changed(): void {
    for (const listener of [...this.listeners]) listener();
  }
}
