import { isProtectedPath } from "./modes.ts";
import { isWithin } from "./posix-path.ts";
import { ruleMatchesSubject, type CompiledRule } from "./rule-matcher.ts";
import type { ShellWrite } from "./shell/write-targets.ts";

// The files a Bash line writes are judged as Edits of those files: the same path rules and the
// same acceptEdits boundary, never the prefix rule that allowed the command.

/** The first rule (in priority order) covering an Edit of this target, if its path is known. */
export function editRuleFor(write: ShellWrite, rules: readonly CompiledRule[]): CompiledRule | undefined {
  if (write.path === undefined) return undefined;
  const subject = { toolName: "Edit", path: write.path };
  return rules.find((rule) => (rule.matcher.kind === "path" || rule.matcher.kind === "tool") && ruleMatchesSubject(rule, subject));
}

/** For deny and ask rules: the first rule that covers any target, with the target it covers. */
export function findWriteRuleHit(writes: readonly ShellWrite[], rules: readonly CompiledRule[]): { rule: CompiledRule; write: ShellWrite } | undefined {
  for (const rule of rules) {
    const write = writes.find((candidate) => editRuleFor(candidate, [rule]) !== undefined);
    if (write) return { rule, write };
  }
  return undefined;
}

/** For allow rules: one rule per target, or undefined when some target has none (devices never do). */
export function editRulesCoveringAll(writes: readonly ShellWrite[], rules: readonly CompiledRule[]): CompiledRule[] | undefined {
  const covering: CompiledRule[] = [];
  for (const write of writes) {
    const rule = write.device ? undefined : editRuleFor(write, rules);
    if (!rule) return undefined;
    covering.push(rule);
  }
  return covering;
}

/** Targets known to lie outside every root, and devices. */
export function writesOutside(writes: readonly ShellWrite[], roots: readonly string[]): ShellWrite[] {
  return writes.filter((write) => write.device || (write.path !== undefined && !roots.some((root) => isWithin(root, write.path!))));
}

/** Targets acceptEdits may not write without asking: unknown paths and protected directories. */
export function writesAcceptEditsRefuses(writes: readonly ShellWrite[], roots: readonly string[]): ShellWrite[] {
  return writes.filter((write) => write.path === undefined || write.device || isProtectedPath(write.path, roots));
}
