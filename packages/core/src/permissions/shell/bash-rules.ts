import type { CompiledRule } from "../rule-matcher.ts";
import { bashSpecifierMatches } from "./bash-specifier.ts";
import { assignmentProblem, dangerousCommandReason, unwrapCommand } from "./command-safety.ts";
import { isReadOnlySimpleCommand } from "./read-only.ts";
import type { ShellAnalysis, ShellWord, SimpleCommand } from "./types.ts";

function ruleMatchesArgv(rule: CompiledRule, argv: readonly ShellWord[]): boolean {
  if (rule.matcher.kind === "tool") return rule.matcher.toolName === "Bash";
  return rule.matcher.kind === "bash" && bashSpecifierMatches(rule.matcher.specifier, argv);
}

/**
 * For deny and ask rules: the first rule (in priority order) matching ANY command the line could
 * run, so `ls $(rm -rf x)`, `sudo rm x` and `sh -c "rm x"` all meet `Bash(rm:*)`. `candidates`
 * come from `denyCandidateArgvs` (computed lazily, once per decision).
 */
export function findBashRuleHit(candidates: () => readonly ShellWord[][], rules: readonly CompiledRule[]): CompiledRule | undefined {
  if (!rules.some((rule) => rule.matcher.kind === "bash" || (rule.matcher.kind === "tool" && rule.matcher.toolName === "Bash"))) return undefined;
  const argvs = candidates();
  for (const rule of rules) {
    if (rule.matcher.kind === "tool" && rule.matcher.toolName === "Bash") return rule;
    if (rule.matcher.kind !== "bash") continue;
    if (argvs.some((argv) => ruleMatchesArgv(rule, argv))) return rule;
  }
  return undefined;
}

/**
 * What allow rules say about the commands of a line (not about the files it writes: a prefix rule
 * never allows those, the engine asks an Edit rule or the mode):
 * - `whole-tool`: a bare `Bash` rule allows anything;
 * - `covered`: every simple command matches an allow rule (`rule` is the first) or is read-only;
 * - `uncovered`: these simple commands are neither;
 * - `unsafe`: no prefix rule can vouch for the line (substitutions, eval, `sh -c`, xargs,
 *   `find -exec`, unsafe variables, syntax errors, …).
 */
export type BashCommandsVerdict =
  | { kind: "whole-tool"; rule: CompiledRule }
  | { kind: "covered"; rule?: CompiledRule }
  | { kind: "uncovered"; uncovered: SimpleCommand[] }
  | { kind: "unsafe"; reason: string };

export function evaluateBashCommands(analysis: ShellAnalysis, rules: readonly CompiledRule[]): BashCommandsVerdict {
  const wholeTool = rules.find((rule) => rule.matcher.kind === "tool" && rule.matcher.toolName === "Bash");
  if (wholeTool) return { kind: "whole-tool", rule: wholeTool };
  if (analysis.problems.length > 0) return { kind: "unsafe", reason: analysis.problems.join("; ") };
  if (analysis.commands.length === 0) return { kind: "unsafe", reason: "a redirection without a command" };
  let firstRule: CompiledRule | undefined;
  const uncovered: SimpleCommand[] = [];
  for (const command of analysis.commands) {
    const unwrapped = unwrapCommand(command);
    const danger = dangerousCommandReason(unwrapped) ?? assignmentProblem(unwrapped.assignments);
    if (danger) return { kind: "unsafe", reason: danger };
    const argvs = unwrapped.argv === command.argv ? [command.argv] : [command.argv, unwrapped.argv];
    const rule = rules.find((candidate) => argvs.some((argv) => ruleMatchesArgv(candidate, argv)));
    if (rule) firstRule ??= rule;
    else if (!isReadOnlySimpleCommand(command)) uncovered.push(command);
  }
  if (uncovered.length > 0) return { kind: "uncovered", uncovered };
  return firstRule ? { kind: "covered", rule: firstRule } : { kind: "covered" };
}
