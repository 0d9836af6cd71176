import type { TabsReply, TabsRequest, TabStream } from "./browser-tabs.bench-child.ts";
import { IpcChild } from "./ipc-child.ts";

export type TabsStatus = Extract<TabsReply, { kind: "status" }>;

/**
 * The browser tabs of a latency round (`session.events` readers, sse-reader.ts) in a process of their own
 * (browser-tabs.bench-child.ts): each delta id is stamped, on CLOCK_MONOTONIC, when its bytes reach a tab, whatever
 * the benchmark's own process is doing meanwhile.
 */
export class BrowserTabs {
  private readonly child = new IpcChild<TabsRequest, TabsReply>("browser-tabs.bench-child.ts", "the browser tabs' process");

  static start(): BrowserTabs {
    return new BrowserTabs();
  }

  /** Opens one tab per stream; resolves once every one has its `connected` frame. */
  async open(streams: TabStream[]): Promise<void> {
    const reply = await this.ask({ kind: "open", streams });
    if (reply.kind === "failed") throw new Error(`a tab could not follow its session: ${reply.message}`);
  }

  /** Delta ids received, runs ended, and the sum of each tab's highest event id. */
  async status(): Promise<TabsStatus> {
    const reply = await this.ask({ kind: "status" });
    if (reply.kind !== "status") throw new Error(`unexpected ${reply.kind}`);
    return reply;
  }

  /** Polls the tabs (every 20 ms) until `done` holds; after `timeoutMs` fails, naming what they had (`describe`). */
  async waitUntil(done: (status: TabsStatus) => boolean, timeoutMs: number, describe: (status: TabsStatus) => string): Promise<TabsStatus> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const status = await this.status();
      if (done(status)) return status;
      if (Date.now() > deadline) throw new Error(`timed out: ${describe(status)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** Closes the tabs; when each delta id first reached one. */
  async take(): Promise<Map<string, number>> {
    const reply = await this.ask({ kind: "take" });
    return new Map(reply.kind === "taken" ? reply.entries : []);
  }

  /** The process's id (for its CPU time). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  close(): Promise<void> {
    return this.child.close();
  }

  private ask(message: TabsRequest): Promise<TabsReply> {
    return this.child.ask(message);
  }
}
