/** Claude Code's hook events. */
export const hookEventNames = [
  "PreToolUse",
  "PostToolUse",
  "PostToolUseFailure",
  "PermissionRequest",
  "UserPromptSubmit",
  "Stop",
  "SubagentStop",
  "PreCompact",
  "SessionStart",
  "SessionEnd",
  "Notification",
] as const;
export type HookEventName = (typeof hookEventNames)[number];

/** The JSON a hook receives on stdin: common fields plus the event's own. */
export type HookInput = {
  session_id: string;
  transcript_path: string;
  cwd: string;
  hook_event_name: HookEventName;
  permission_mode?: string;
  [key: string]: unknown;
};

/** What all hooks matching one event said, folded together. */
export type HookOutcome = {
  /** Exit code 2 or `decision: "block"`: the action is blocked and `reason` goes to the model. */
  blocked: { hookName: string; reason: string } | null;
  permissionDecision?: { behavior: "allow" | "deny" | "ask"; hookName: string; reason?: string };
  /** `PermissionRequest`: the hooks' answer to the permission prompt; a deny from any hook wins. */
  permissionRequest?: ({ behavior: "allow"; updatedInput?: Record<string, unknown> } | { behavior: "deny"; message?: string; interrupt?: boolean }) & {
    hookName: string;
  };
  updatedInput?: Record<string, unknown>;
  additionalContext: string[];
  systemMessages: string[];
  /** `continue: false`: stop the whole run. */
  preventContinuation: { hookName: string; stopReason?: string } | null;
  /** Non-blocking failures, shown to the user. */
  errors: Array<{ hookName: string; message: string }>;
  /** Things the user should know that are not errors (a hook printed output that is not JSON). */
  notices: Array<{ hookName: string; message: string }>;
  /** `output`: the hook's plain stdout, unless it asked for `suppressOutput`. */
  ran: Array<{ hookName: string; durationMs: number; exitCode: number | null; output?: string }>;
  /** `suppressOutput: true` from any hook: keep its stdout out of the transcript view. */
  suppressOutput?: boolean;
};

export const emptyHookOutcome = (): HookOutcome => ({
  blocked: null,
  additionalContext: [],
  systemMessages: [],
  preventContinuation: null,
  errors: [],
  notices: [],
  ran: [],
});

/** The seam between the engine and the hook system (settings, matchers, the process runner). */
export interface HookDispatcher {
  dispatch(
    event: HookEventName,
    input: Omit<HookInput, "session_id" | "transcript_path" | "cwd" | "hook_event_name"> & Record<string, unknown>,
    options: { signal: AbortSignal; matchValue?: string },
  ): Promise<HookOutcome>;
}

/** One hook command to run. `stdin` is the JSON `HookInput`. */
export type HookRunRequest = {
  command: string;
  stdin: string;
  cwd: string;
  timeoutMs: number;
  signal: AbortSignal;
  env?: Record<string, string>;
};

export type HookRunResult = {
  /** null when the process was killed (timeout, abort) or could not start. */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  aborted: boolean;
  durationMs: number;
  /** Set when the command could not be started at all. */
  spawnError?: string;
};

/** Runs hook commands; the Node implementation spawns `sh -c`, optionally wrapped by a sandbox. */
export interface HookRunner {
  run(request: HookRunRequest): Promise<HookRunResult>;
}

export const noHooks: HookDispatcher = {
  async dispatch() {
    return emptyHookOutcome();
  },
};
