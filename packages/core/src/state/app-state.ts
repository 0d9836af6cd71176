import type { TodoItem } from "../schema/events.ts";
import type { PermissionMode } from "../schema/permissions.ts";
import type { DeepImmutable } from "./deep-immutable.ts";

export type McpServerStatus =
  | { state: "connecting" }
  /** `warning`: e.g. a stdio server that runs outside the sandbox because the sandbox is unavailable. */
  | { state: "connected"; toolCount: number; warning?: string }
  | { state: "failed"; reason: string }
  | { state: "disabled" };

/**
 * Denials in this session: `consecutive` since the last allowed call and `total`; the same two for
 * the auto-mode classifier alone (its fallback to asking); and per tool-and-pattern key, for rule
 * suggestions.
 */
export type DenialTracking = {
  consecutive: number;
  total: number;
  classifierConsecutive: number;
  classifierTotal: number;
  byPattern: Record<string, number>;
};

export const initialDenialTracking: DenialTracking = { consecutive: 0, total: 0, classifierConsecutive: 0, classifierTotal: 0, byPattern: {} };

export type AppState = DeepImmutable<{
  model: string;
  /** A skill's `model:` while the prompt that used it runs; the main conversation's requests use it, then `model` again. */
  skillModel?: string;
  permissionMode: PermissionMode;
  todos: TodoItem[];
  /** Rules the user allowed for this session only, e.g. `Bash(npm test:*)`. */
  sessionAllowRules: string[];
  /** Per-session denial counters (permissions/denial-tracking.ts). */
  denials: DenialTracking;
  mcp: { servers: Record<string, McpServerStatus> };
  compaction: { consecutiveFailures: number; breakerTripped: boolean };
}>;

export function createInitialAppState(overrides: Partial<AppState> & { model: string }): AppState {
  return {
    permissionMode: "default",
    todos: [],
    sessionAllowRules: [],
    denials: initialDenialTracking,
    mcp: { servers: {} },
    compaction: { consecutiveFailures: 0, breakerTripped: false },
    ...overrides,
  };
}
