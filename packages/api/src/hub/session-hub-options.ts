import type { QueryDeps } from "@cairn/core";
import type { Runtime } from "../runtime/runtime-types.ts";
import type { WorktreeSessions } from "../worktree/worktree-sessions.ts";
import type { EventBus } from "./event-bus.ts";
import type { SessionOwnership } from "./session-ownership.ts";

/** Sessions idle this long (not running, not watched, not requested) are let go by default. */
export const DEFAULT_IDLE_TIMEOUT_MS = 30 * 60_000;
export const EMPTY_SESSION_IDLE_MS = 10 * 60_000;

export type SessionHubOptions = {
  runtime: Runtime;
  bus?: EventBus;
  /** Take a shadow-git checkpoint of the workspace at every prompt (for rewind). Default true. */
  checkpoints?: boolean;
  maxQueuedPrompts?: number;
  /** Whether Bash runs sandboxed (bypassPermissions is refused to root otherwise). */
  sandboxed?: boolean;
  /** Sessions idle this long (not running, not watched, not requested) are let go; 0 keeps them. Default 30 min. */
  idleTimeoutMs?: number;
  /** Replaces the loop's side effects (tests). */
  deps?: (runtime: Runtime) => QueryDeps;
  /** Sessions in worktrees of their own: their runtime (tools, sandbox, git) is rooted there. */
  worktrees?: WorktreeSessions;
  /** Distributed mode: session leases, commands routed to the owner node, takeover. Embedded: none. */
  ownership?: SessionOwnership;
  /** At close, how long running prompts may go on before they are interrupted and handed over (ms). Default 30,000 with ownership. */
  drainTimeoutMs?: number;
};
