import type { HookGroup, MergedSettings } from "../permissions/settings-merge.ts";
import type { SettingsSource } from "../permissions/settings-schema.ts";
import { interpretHookResult, type HookVerdict } from "./hook-output.ts";
import { compileHookMatcher } from "./matcher.ts";
import { emptyHookOutcome, type HookDispatcher, type HookEventName, type HookInput, type HookOutcome, type HookRunner } from "./port.ts";

export const DEFAULT_HOOK_TIMEOUT_MS = 60_000;

export type HookDispatcherOptions = {
  getSettings(): Pick<MergedSettings, "hooks" | "allowManagedHooksOnly"> & Partial<Pick<MergedSettings, "env">>;
  runner: HookRunner;
  sessionId: string;
  transcriptPath: string;
  /** The workspace root: hooks run there and see it as `cwd` and `$CLAUDE_PROJECT_DIR`. */
  cwd: string;
  /** Project and local hooks run only in a trusted workspace. */
  trusted: boolean | (() => boolean);
  /** Current permission mode, sent as `permission_mode`. */
  getPermissionMode?: () => string;
  defaultTimeoutMs?: number;
};

const projectSources = new Set<SettingsSource>(["projectSettings", "localSettings"]);

type PlannedHook = { hookName: string; command: string; timeoutMs: number };

function label(command: string): string {
  return command.length > 120 ? `${command.slice(0, 117)}...` : command;
}

/**
 * Runs the hooks configured for an event (Claude Code's `hooks` format) in parallel, each with its
 * timeout, passes the JSON input on stdin, and folds their answers into one `HookOutcome`:
 * a block or a deny from any hook wins, then ask, then allow.
 */
export function createHookDispatcher(options: HookDispatcherOptions): HookDispatcher {
  const defaultTimeoutMs = options.defaultTimeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS;
  const isTrusted = () => (typeof options.trusted === "function" ? options.trusted() : options.trusted);

  const plan = (event: HookEventName, matchValue: string | undefined, errors: HookOutcome["errors"]): PlannedHook[] => {
    const settings = options.getSettings();
    const trusted = isTrusted();
    const planned: PlannedHook[] = [];
    const seen = new Set<string>();
    for (const group of settings.hooks as readonly HookGroup[]) {
      if (group.event !== event) continue;
      if (settings.allowManagedHooksOnly && group.source !== "policySettings") continue;
      if (!trusted && projectSources.has(group.source)) continue;
      // Events without a match value (UserPromptSubmit, Stop, …) run every group.
      if (matchValue !== undefined) {
        const matcher = compileHookMatcher(group.matcher);
        if (matcher.error) errors.push({ hookName: `${event}:${group.matcher ?? ""}`, message: matcher.error });
        if (!matcher.matches(matchValue)) continue;
      }
      for (const hook of group.hooks) {
        if (seen.has(hook.command)) continue;
        seen.add(hook.command);
        planned.push({ hookName: label(hook.command), command: hook.command, timeoutMs: hook.timeout ? hook.timeout * 1000 : defaultTimeoutMs });
      }
    }
    return planned;
  };

  return {
    async dispatch(event, input, { signal, matchValue }) {
      const outcome = emptyHookOutcome();
      const hooks = plan(event, matchValue, outcome.errors);
      if (hooks.length === 0) return outcome;
      const permissionMode = options.getPermissionMode?.();
      const payload: HookInput = {
        ...input,
        session_id: options.sessionId,
        transcript_path: options.transcriptPath,
        cwd: options.cwd,
        hook_event_name: event,
        ...(permissionMode && input.permission_mode === undefined ? { permission_mode: permissionMode } : {}),
      };
      const stdin = JSON.stringify(payload);
      const env = { ...(options.getSettings().env ?? {}), CLAUDE_PROJECT_DIR: options.cwd, CAIRN_PROJECT_DIR: options.cwd };
      const verdicts = await Promise.all(
        hooks.map(async (hook): Promise<{ verdict: HookVerdict; durationMs: number; exitCode: number | null }> => {
          try {
            const result = await options.runner.run({ command: hook.command, stdin, cwd: options.cwd, timeoutMs: hook.timeoutMs, signal, env });
            return { verdict: interpretHookResult(event, hook.hookName, result, hook.timeoutMs), durationMs: result.durationMs, exitCode: result.exitCode };
          } catch (error) {
            return { verdict: { hookName: hook.hookName, error: error instanceof Error ? error.message : String(error) }, durationMs: 0, exitCode: null };
          }
        }),
      );
      for (const { verdict, durationMs, exitCode } of verdicts) {
        outcome.ran.push({
          hookName: verdict.hookName,
          durationMs,
          exitCode,
          ...(verdict.output && !verdict.suppressOutput ? { output: verdict.output } : {}),
        });
        foldVerdict(outcome, verdict);
      }
      return outcome;
    },
  };
}

const decisionRank = { deny: 3, ask: 2, allow: 1 } as const;

/** Folds one hook's verdict in configuration order. */
export function foldVerdict(outcome: HookOutcome, verdict: HookVerdict): void {
  const { hookName } = verdict;
  if (verdict.error) outcome.errors.push({ hookName, message: verdict.error });
  if (verdict.notice) outcome.notices.push({ hookName, message: verdict.notice });
  if (verdict.permissionRequest && outcome.permissionRequest?.behavior !== "deny") {
    outcome.permissionRequest = { ...verdict.permissionRequest, hookName };
  }
  if (verdict.blocked !== undefined && !outcome.blocked) outcome.blocked = { hookName, reason: verdict.blocked };
  if (verdict.permissionDecision) {
    const current = outcome.permissionDecision;
    if (!current || decisionRank[verdict.permissionDecision.behavior] > decisionRank[current.behavior]) {
      outcome.permissionDecision = { ...verdict.permissionDecision, hookName };
    }
  }
  if (verdict.updatedInput) {
    if (outcome.updatedInput) outcome.errors.push({ hookName, message: "another hook already changed the input; this hook's updatedInput was ignored" });
    else outcome.updatedInput = verdict.updatedInput;
  }
  if (verdict.additionalContext) outcome.additionalContext.push(verdict.additionalContext);
  if (verdict.systemMessage) outcome.systemMessages.push(verdict.systemMessage);
  if (verdict.stop && !outcome.preventContinuation) {
    outcome.preventContinuation = { hookName, ...(verdict.stop.stopReason === undefined ? {} : { stopReason: verdict.stop.stopReason }) };
  }
  if (verdict.suppressOutput) outcome.suppressOutput = true;
}
