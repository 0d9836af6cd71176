import type { WatchEvent, Workspace } from "@cairn/core";

type WatchListener = (event: WatchEvent) => void;

/**
 * One file watcher on the workspace for any number of subscribers: started by the first, stopped
 * when the last leaves (a watcher holds one inotify handle per directory, so tabs must not multiply it).
 */
export class SharedWatch {
  private readonly workspace: Workspace;
  private readonly listeners = new Set<WatchListener>();
  private stop: AbortController | undefined;

  constructor(workspace: Workspace) {
    this.workspace = workspace;
  }

  get listenerCount(): number {
    return this.listeners.size;
  }

  subscribe(listener: WatchListener): () => void {
    this.listeners.add(listener);
    if (!this.stop) {
      const controller = new AbortController();
      this.stop = controller;
      this.workspace.watch((event) => {
        for (const each of [...this.listeners]) each(event);
      }, controller.signal);
    }
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0 && this.stop) {
        this.stop.abort();
        this.stop = undefined;
      }
    };
  }
}
