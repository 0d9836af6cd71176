import type { TodoItem } from "../schema/events.ts";
import type { PermissionMode } from "../schema/permissions.ts";
import type { DeepImmutable } from "./deep-immutable.ts";

export type McpServerStatus =
  | { state: "connecting" }
  /** `warning`: e.g. a stdio server that runs outside the sandbox because the sandbox is unavailable. */
  | { state: "connected"; toolCount: number; warning?: string }
  | { state: "failed"; reason: string }
  | { state: "disabled" };

export type AppState = DeepImmutable<{
  model: string;
  permissionMode: PermissionMode;
  todos: TodoItem[];
  /** Rules the user allowed for this session only, e.g. `Bash(npm test:*)`. */
  sessionAllowRules: string[];
  /** Denials per tool-and-pattern key, for rule suggestions. */
  denials: Record<string, number>;
  mcp: { servers: Record<string, McpServerStatus> };
  compaction: { consecutiveFailures: number; breakerTripped: boolean };
}>;

export function createInitialAppState(overrides: Partial<AppState> & { model: string }): AppState {
  return {
    permissionMode: "default",
    todos: [],
    sessionAllowRules: [],
    denials: {},
    mcp: { servers: {} },
    compaction: { consecutiveFailures: 0, breakerTripped: false },
    ...overrides,
  };
}
