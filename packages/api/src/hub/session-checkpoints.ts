import type { ConversationMessage } from "@cairn/core/schema";
import { createCheckpointStore, type CheckpointStore } from "@cairn/core/node";
import type { Runtime } from "../runtime/runtime-types.ts";
import type { LiveSession } from "./live-session.ts";

type PromptCheckpoint = (session: LiveSession, message: ConversationMessage, signal: AbortSignal) => Promise<void>;

/** The hub's shadow-git file checkpoints: the main checkout's store and one per worktree a session runs in (none when turned off). */
export class SessionCheckpoints {
  /** The main checkout's store (undefined when checkpoints are turned off). */
  readonly main: CheckpointStore | undefined;
  private readonly mainRuntime: Runtime;
  private readonly worktrees = new Map<string, CheckpointStore>();

  constructor(mainRuntime: Runtime, enabled: boolean) {
    this.mainRuntime = mainRuntime;
    this.main = enabled ? createCheckpointStore({ cairnHome: mainRuntime.cairnHome, workspaceRoot: mainRuntime.workspaceRoot }) : undefined;
  }

  /** The store of the checkout `runtime` runs in. */
  for(runtime: Runtime): CheckpointStore | undefined {
    if (runtime === this.mainRuntime || !this.main) return this.main;
    let store = this.worktrees.get(runtime.workspaceRoot);
    if (!store) {
      store = createCheckpointStore({ cairnHome: this.mainRuntime.cairnHome, workspaceRoot: runtime.workspaceRoot });
      this.worktrees.set(runtime.workspaceRoot, store);
    }
    return store;
  }

  /** A live session's `checkpoint` option: snapshots the files before a prompt's first change and records the commit in the transcript. */
  promptCheckpoint(runtime: Runtime): PromptCheckpoint | undefined {
    const checkpoints = this.for(runtime);
    if (!checkpoints) return undefined;
    return async (live, message, signal) => {
      const commit = await checkpoints.snapshot(`prompt ${message.uuid}`, { signal });
      await live.sessionWiring().sink.appendCheckpoint(message.uuid, commit);
    };
  }
}
