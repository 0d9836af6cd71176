import type { CallSubject } from "./call-subject.ts";
import { dirnamePosix, escapeGlob, isWithin, relativeWithin } from "./posix-path.ts";
import { escapeRuleContent } from "./rule-parser.ts";
import { dangerousCommandReason, unwrapCommand } from "./shell/command-safety.ts";
import { isReadOnlySimpleCommand } from "./shell/read-only.ts";
import type { ShellAnalysis, ShellWord, SimpleCommand } from "./shell/types.ts";
import type { ShellWrite } from "./shell/write-targets.ts";

// Commands whose second word picks what runs (`git status`, `cargo test`), and package-runner verbs
// that pick a script (`npm run test`).
const subcommandTools = new Set([
  "git",
  "npm",
  "pnpm",
  "yarn",
  "bun",
  "deno",
  "cargo",
  "go",
  "docker",
  "podman",
  "kubectl",
  "make",
  "pip",
  "pip3",
  "poetry",
  "uv",
  "gh",
  "dotnet",
  "mvn",
  "gradle",
  "./gradlew",
  "terraform",
  "helm",
  "npx",
  "pnpx",
  "bunx",
  "rustup",
  "brew",
]);
const scriptRunnerVerbs = new Set(["run", "run-script", "exec", "x", "dlx"]);
const interpreters = new Set(["python", "python3", "node", "ruby", "perl", "php", "tsx", "ts-node", "deno"]);

function plainWord(word: ShellWord | undefined): string | undefined {
  if (!word?.literal || word.value === "" || word.value.startsWith("-") || /[\s*]/.test(word.value)) return undefined;
  return word.value;
}

/** `npm run test -- --watch` → `npm run test`; `git status -s` → `git status`; `ls -la` → `ls`. */
export function commandPrefix(argv: readonly ShellWord[]): string[] | undefined {
  const name = plainWord(argv[0]);
  if (!name) return undefined;
  const words = [name];
  const second = plainWord(argv[1]);
  if (second && (subcommandTools.has(name) || interpreters.has(name))) {
    words.push(second);
    const third = plainWord(argv[2]);
    if (third && subcommandTools.has(name) && scriptRunnerVerbs.has(second)) words.push(third);
  }
  return words;
}

function bashSuggestions(analysis: ShellAnalysis, uncovered: readonly SimpleCommand[] | undefined): string[] {
  if (analysis.problems.length > 0) return [];
  const candidates = uncovered ?? analysis.commands.filter((command) => !isReadOnlySimpleCommand(command));
  const rules: string[] = [];
  for (const command of candidates) {
    const unwrapped = unwrapCommand(command);
    if (dangerousCommandReason(unwrapped)) return [];
    const prefix = commandPrefix(unwrapped.argv);
    if (!prefix) continue;
    const rule = `Bash(${escapeRuleContent(prefix.join(" "))}:*)`;
    if (!rules.includes(rule)) rules.push(rule);
  }
  return rules;
}

/** A path as rule text: glob characters escaped (paths are patterns), then rule parentheses. */
function literalPattern(path: string): string {
  return escapeRuleContent(escapeGlob(path));
}

function pathRule(toolName: "Read" | "Edit", path: string, roots: readonly string[], homeDir: string | undefined, isDirectory: boolean): string {
  const projectRoot = roots[0];
  const relative = projectRoot === undefined ? undefined : relativeWithin(projectRoot, path);
  const target = isDirectory ? path : dirnamePosix(path);
  if (projectRoot !== undefined && relative !== undefined) {
    // A file at the root gets its own rule; anything deeper gets its directory.
    if (!isDirectory && !relative.includes("/")) return `${toolName}(/${literalPattern(relative)})`;
    const directory = relativeWithin(projectRoot, target) ?? "";
    return directory === "" ? `${toolName}(/**)` : `${toolName}(/${literalPattern(directory)}/**)`;
  }
  if (homeDir && isWithin(homeDir, target)) {
    const underHome = relativeWithin(homeDir, target) ?? "";
    return `${toolName}(~/${underHome === "" ? "" : `${literalPattern(underHome)}/`}**)`;
  }
  return target === "/" ? `${toolName}(//**)` : `${toolName}(/${literalPattern(target)}/**)`;
}

export type SuggestionContext = { roots: readonly string[]; homeDir?: string };

/**
 * Rules a person could add so this call is not asked about again, most useful first. The first
 * one is what "always allow" persists. Commands no rule can allow get none.
 */
export function suggestRules(
  subject: CallSubject,
  analysis: ShellAnalysis | undefined,
  context: SuggestionContext,
  uncovered?: readonly SimpleCommand[],
  writes: readonly ShellWrite[] = [],
): string[] {
  if (subject.toolName === "Bash") {
    // Nothing can allow a line that runs hidden code, so nothing is suggested for it.
    if (!analysis || analysis.problems.length > 0 || analysis.commands.some((command) => dangerousCommandReason(unwrapCommand(command)))) return [];
    // The files a line writes need Edit rules of their own: a Bash rule never covers them.
    const editRules = writes.flatMap((write) =>
      write.path === undefined || write.device ? [] : [pathRule("Edit", write.path, context.roots, context.homeDir, false)],
    );
    return [...new Set([...bashSuggestions(analysis, uncovered), ...editRules])];
  }
  if (subject.mcpServer !== undefined) return [subject.toolName, `mcp__${subject.mcpServer}`];
  if (subject.toolName === "WebFetch") return subject.hostname ? [`WebFetch(domain:${subject.hostname})`] : [];
  if ((subject.isEdit || subject.isRead) && subject.path !== undefined) {
    const family = subject.isEdit ? "Edit" : "Read";
    const isDirectory = subject.toolName === "Glob" || subject.toolName === "Grep" || subject.toolName === "LS";
    return [pathRule(family, subject.path, context.roots, context.homeDir, isDirectory)];
  }
  return [subject.toolName];
}

/** The key denials are counted under: the tool plus the rule that would cover this call. */
export function denialKey(toolName: string, suggestions: readonly string[]): string {
  return `${toolName}:${suggestions[0] ?? toolName}`;
}
