import picomatch from "picomatch/posix";
import type { PermissionBehavior, PermissionRuleSource } from "../schema/permissions.ts";
import { escapeGlob, resolvePosix } from "./posix-path.ts";
import { parseRuleValue, type RuleValue } from "./rule-parser.ts";
import { compileBashSpecifier, type BashSpecifier } from "./shell/bash-specifier.ts";

/** A rule as configured: where it came from and what it does. */
export type PermissionRule = {
  rule: string;
  behavior: PermissionBehavior;
  source: PermissionRuleSource;
  value: RuleValue;
};

export type RuleMatcher =
  | { kind: "tool"; toolName: string }
  | { kind: "mcp-server"; server: string }
  | { kind: "bash"; specifier: BashSpecifier }
  | { kind: "path"; toolName: string; matches: (absolutePath: string) => boolean }
  | { kind: "domain"; matches: (hostname: string) => boolean }
  | { kind: "agent"; subagentType: string }
  | { kind: "unsupported"; reason: string };

export type CompiledRule = PermissionRule & { matcher: RuleMatcher };

/** What the engine knows about one call, for rules other than Bash specifiers. */
export type RuleSubject = {
  /** `mcp__server__tool` for MCP tools, else the tool's name. */
  toolName: string;
  mcpServer?: string;
  path?: string;
  hostname?: string;
  subagentType?: string;
};

export const readToolFamily: readonly string[] = ["Read", "Glob", "Grep", "LS", "NotebookRead"];
export const editToolFamily: readonly string[] = ["Edit", "Write", "MultiEdit", "NotebookEdit"];
const pathRuleTools = new Set([...readToolFamily, ...editToolFamily]);

/** `Read(…)` covers every reading tool and `Edit(…)` every editing tool, as in Claude Code. */
export function ruleToolCovers(ruleTool: string, toolName: string): boolean {
  if (ruleTool === toolName) return true;
  if (ruleTool === "Read") return readToolFamily.includes(toolName);
  if (ruleTool === "Edit") return editToolFamily.includes(toolName);
  return false;
}

export type PathRuleRoots = { projectRoot: string; homeDir?: string };

/**
 * gitignore-style path patterns: `//abs/**` absolute, `~/x` home, `/src/**` and `./src/**` from the
 * project root, `*.env` (no slash) at any depth below it. A pattern also covers what is inside a
 * matching directory.
 */
export function compilePathPattern(pattern: string, roots: PathRuleRoots): ((absolutePath: string) => boolean) | string {
  let base: string;
  let rest: string;
  if (pattern.startsWith("//")) {
    base = "/";
    rest = pattern.slice(2);
  } else if (pattern === "~" || pattern.startsWith("~/")) {
    if (!roots.homeDir) return "a ~/ path rule needs a home directory";
    base = roots.homeDir;
    rest = pattern.slice(2);
  } else if (pattern.startsWith("/")) {
    base = roots.projectRoot;
    rest = pattern.slice(1);
  } else if (pattern.startsWith("./")) {
    base = roots.projectRoot;
    rest = pattern.slice(2);
  } else {
    base = roots.projectRoot;
    rest = pattern.replace(/\/$/, "").includes("/") ? pattern : `**/${pattern}`;
  }
  rest = rest.replace(/\/+$/, "");
  if (rest.startsWith("../") || rest === "..") return "a path rule may not climb above its base with ..";
  const prefix = base === "/" ? "/" : `${escapeGlob(base)}/`;
  const glob = rest === "" ? escapeGlob(base) : `${prefix}${rest}`;
  const matcher = picomatch([glob, `${glob}/**`], { dot: true });
  return (absolutePath) => matcher(resolvePosix("/", absolutePath));
}

function compileMatcher(value: RuleValue, roots: PathRuleRoots): RuleMatcher {
  const { toolName, content } = value;
  if (toolName.startsWith("mcp__")) {
    if (content !== undefined) return { kind: "unsupported", reason: "MCP rules take no specifier" };
    const rest = toolName.slice("mcp__".length);
    const split = rest.indexOf("__");
    if (split === -1) return { kind: "mcp-server", server: rest };
    const tool = rest.slice(split + 2);
    if (tool === "*") return { kind: "mcp-server", server: rest.slice(0, split) };
    return { kind: "tool", toolName };
  }
  if (toolName.includes("*")) return { kind: "unsupported", reason: "wildcards in tool names are only allowed as mcp__server__*" };
  if (content === undefined) return { kind: "tool", toolName };
  if (toolName === "Bash") return { kind: "bash", specifier: compileBashSpecifier(content) };
  if (pathRuleTools.has(toolName)) {
    const compiled = compilePathPattern(content, roots);
    if (typeof compiled === "string") return { kind: "unsupported", reason: compiled };
    return { kind: "path", toolName, matches: compiled };
  }
  if (toolName === "WebFetch") {
    const domain = /^domain:(.+)$/.exec(content)?.[1]?.trim().toLowerCase();
    if (!domain) return { kind: "unsupported", reason: 'WebFetch rules take "domain:<host>"' };
    if (domain.startsWith("*.")) {
      const suffix = domain.slice(1);
      return { kind: "domain", matches: (hostname) => hostname.endsWith(suffix) };
    }
    return { kind: "domain", matches: (hostname) => hostname === domain };
  }
  if (toolName === "Agent" || toolName === "Task") return { kind: "agent", subagentType: content };
  return { kind: "unsupported", reason: `${toolName} rules take no specifier` };
}

export type RuleCompileResult = { ok: true; rule: CompiledRule } | { ok: false; message: string };

export function compileRule(rule: string, behavior: PermissionBehavior, source: PermissionRuleSource, roots: PathRuleRoots): RuleCompileResult {
  const parsed = parseRuleValue(rule);
  if (!parsed.ok) return { ok: false, message: parsed.message };
  const matcher = compileMatcher(parsed.value, roots);
  if (matcher.kind === "unsupported") return { ok: false, message: `${matcher.reason} (rule "${rule}")` };
  return { ok: true, rule: { rule, behavior, source, value: parsed.value, matcher } };
}

/** Whether a rule names this tool at all (its specifier aside). */
export function ruleNamesTool(rule: CompiledRule, subject: RuleSubject): boolean {
  const matcher = rule.matcher;
  switch (matcher.kind) {
    case "tool":
      return ruleToolCovers(matcher.toolName, subject.toolName) || (subject.toolName === "Agent" && matcher.toolName === "Task");
    case "mcp-server":
      return subject.mcpServer === matcher.server;
    case "bash":
      return subject.toolName === "Bash";
    case "path":
      return ruleToolCovers(matcher.toolName, subject.toolName);
    case "domain":
      return subject.toolName === "WebFetch";
    case "agent":
      return subject.toolName === "Agent" || subject.toolName === "Task";
    case "unsupported":
      return false;
  }
}

/** Whether a non-Bash rule matches the call (Bash specifiers need the shell analysis). */
export function ruleMatchesSubject(rule: CompiledRule, subject: RuleSubject): boolean {
  if (!ruleNamesTool(rule, subject)) return false;
  const matcher = rule.matcher;
  switch (matcher.kind) {
    case "tool":
    case "mcp-server":
      return true;
    case "path":
      return subject.path !== undefined && matcher.matches(subject.path);
    case "domain":
      return subject.hostname !== undefined && matcher.matches(subject.hostname.toLowerCase());
    case "agent":
      return subject.subagentType === matcher.subagentType;
    case "bash":
    case "unsupported":
      return false;
  }
}
