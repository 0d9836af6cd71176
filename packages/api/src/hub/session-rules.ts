import { checkBypassPermissionsAllowed, parseRuleValue, type AppState, type Store } from "@cairn/core";
import type { PermissionBehavior } from "@cairn/core/schema";
import { ApiError } from "../router/errors.ts";
import type { Runtime } from "../runtime/runtime-types.ts";

/** Adds an allow rule that holds for this session only. */
export function addSessionRule(store: Store<AppState>, behavior: PermissionBehavior, rule: string): void {
  checkSessionRule(behavior, rule);
  store.setState((state) => (state.sessionAllowRules.includes(rule) ? state : { ...state, sessionAllowRules: [...state.sessionAllowRules, rule] }));
}

/** Removes a session allow rule; false when it was not there. */
export function removeSessionRule(store: Store<AppState>, behavior: PermissionBehavior, rule: string): boolean {
  checkSessionRule(behavior, rule);
  const present = store.getState().sessionAllowRules.includes(rule);
  if (present) store.setState((state) => ({ ...state, sessionAllowRules: state.sessionAllowRules.filter((existing) => existing !== rule) }));
  return present;
}

/** Refuses bypassPermissions to root without the sandbox, and when the settings turned the mode off. */
export function assertBypassAllowed(runtime: Runtime, sandboxed: boolean): void {
  const check = bypassCheck(runtime, sandboxed);
  if (!check.ok) throw new ApiError("mode_not_allowed", check.reason);
}

/** Whether this server allows bypassPermissions (see `assertBypassAllowed`). */
export function bypassAllowed(runtime: Runtime, sandboxed: boolean): boolean {
  return bypassCheck(runtime, sandboxed).ok;
}

function bypassCheck(runtime: Runtime, sandboxed: boolean): ReturnType<typeof checkBypassPermissionsAllowed> {
  return checkBypassPermissionsAllowed({
    uid: typeof process.getuid === "function" ? process.getuid() : undefined,
    sandboxed,
    disabledBySettings: runtime.settings.merged.permissions.disableBypassPermissionsMode,
  });
}

function checkSessionRule(behavior: PermissionBehavior, rule: string): void {
  const parsed = parseRuleValue(rule);
  if (!parsed.ok) throw new ApiError("invalid_rule", `"${rule}" is not a permission rule: ${parsed.message}`);
  if (behavior !== "allow") throw new ApiError("invalid_rule", "Session rules can only allow; add deny and ask rules to the local settings");
}
