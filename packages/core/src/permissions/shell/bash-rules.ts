import type { CompiledRule } from "../rule-matcher.ts";
import { bashSpecifierMatches } from "./bash-specifier.ts";
import { assignmentProblem, dangerousCommandReason, redirectProblem, unwrapCommand, type RedirectScope } from "./command-safety.ts";
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

export type BashAllowResult =
  | { allowed: true; rule: CompiledRule }
  | { allowed: false; reason?: string; uncovered: SimpleCommand[] };

/**
 * For allow rules: a whole-tool `Bash` rule allows anything. A specifier rule allows only when the
 * command parsed cleanly, has nothing that could run hidden code (substitutions, eval, `sh -c`,
 * xargs, `find -exec`, unsafe variables), writes only inside the workspace or to /dev/null, and
 * EVERY simple command matches an allow rule or is read-only on its own.
 */
export function evaluateBashAllow(analysis: ShellAnalysis, rules: readonly CompiledRule[], scope: RedirectScope): BashAllowResult {
  const wholeTool = rules.find((rule) => rule.matcher.kind === "tool" && rule.matcher.toolName === "Bash");
  if (wholeTool) return { allowed: true, rule: wholeTool };
  if (analysis.problems.length > 0) return { allowed: false, reason: analysis.problems.join("; "), uncovered: [] };
  // After a `cd` a relative target no longer resolves against the working directory we know.
  const changesDirectory = analysis.commands.some((command) => ["cd", "pushd", "popd"].includes(command.argv[0]?.value ?? ""));
  for (const redirect of analysis.redirects) {
    if (changesDirectory && redirect.kind === "write" && redirect.target && !redirect.target.value.startsWith("/")) {
      return { allowed: false, reason: `output redirection to ${redirect.target.raw} after a change of directory`, uncovered: [] };
    }
    const problem = redirectProblem(redirect, scope);
    if (problem) return { allowed: false, reason: problem, uncovered: [] };
  }
  let firstRule: CompiledRule | undefined;
  const uncovered: SimpleCommand[] = [];
  for (const command of analysis.commands) {
    const unwrapped = unwrapCommand(command);
    const danger = dangerousCommandReason(unwrapped) ?? assignmentProblem(unwrapped.assignments);
    if (danger) return { allowed: false, reason: danger, uncovered: [] };
    const argvs = unwrapped.argv === command.argv ? [command.argv] : [command.argv, unwrapped.argv];
    const rule = rules.find((candidate) => argvs.some((argv) => ruleMatchesArgv(candidate, argv)));
    if (rule) firstRule ??= rule;
    else if (!isReadOnlySimpleCommand(command)) uncovered.push(command);
  }
  if (firstRule && uncovered.length === 0) return { allowed: true, rule: firstRule };
  return { allowed: false, uncovered };
}
