import { describe, expect, test } from "vitest";
import { compileRule, ruleMatchesSubject, type CompiledRule, type RuleSubject } from "./rule-matcher.ts";

const roots = { projectRoot: "/ws", homeDir: "/home/dev" };

function rule(text: string): CompiledRule {
  const result = compileRule(text, "deny", "projectSettings", roots);
  if (!result.ok) throw new Error(result.message);
  return result.rule;
}

describe("path rules (gitignore style)", () => {
  test.each<[string, string, string, boolean]>([
    ["Read(./secrets/**)", "Read", "/ws/secrets/key.pem", true],
    ["Read(./secrets/**)", "Read", "/ws/secrets/deep/a", true],
    ["Read(./secrets/**)", "Read", "/ws/app/secrets/key.pem", false],
    ["Read(./secrets)", "Read", "/ws/secrets/key.pem", true],
    ["Read(secrets/**)", "Read", "/ws/secrets/x", true],
    ["Read(*.env)", "Read", "/ws/.env", true],
    ["Read(*.env)", "Read", "/ws/prod.env", true],
    ["Read(*.env)", "Read", "/ws/deep/dir/prod.env", true],
    ["Read(.env)", "Read", "/ws/deep/.env", true],
    ["Read(.env)", "Read", "/elsewhere/.env", false],
    ["Edit(/src/**)", "Edit", "/ws/src/a.ts", true],
    ["Edit(/src/**)", "Edit", "/ws/lib/src/a.ts", false],
    ["Edit(/src/**)", "Edit", "/src/a.ts", false],
    ["Edit(/src/**/*.ts)", "Write", "/ws/src/a/b.ts", true],
    ["Edit(/src/**/*.ts)", "Write", "/ws/src/a/b.js", false],
    ["Edit(/src/**)", "NotebookEdit", "/ws/src/n.ipynb", true],
    ["Edit(/src/**)", "Read", "/ws/src/a.ts", false],
    ["Read(/src/**)", "Grep", "/ws/src", true],
    ["Read(/src/**)", "Glob", "/ws/src/x", true],
    ["Write(/out/**)", "Write", "/ws/out/a", true],
    ["Write(/out/**)", "Edit", "/ws/out/a", false],
    ["Read(~/.ssh/**)", "Read", "/home/dev/.ssh/id_rsa", true],
    ["Read(~/.ssh/**)", "Read", "/ws/.ssh/id_rsa", false],
    ["Read(//etc/**)", "Read", "/etc/passwd", true],
    ["Read(//etc/**)", "Read", "/ws/etc/passwd", false],
    ["Read(//tmp/*.log)", "Read", "/tmp/a.log", true],
    ["Read(//tmp/*.log)", "Read", "/tmp/x/a.log", false],
  ])("%s on %s %s → %s", (text, toolName, path, expected) => {
    expect(ruleMatchesSubject(rule(text), { toolName, path })).toBe(expected);
  });

  test("a project root with glob characters is taken literally", () => {
    const compiled = compileRule("Read(/a/**)", "allow", "session", { projectRoot: "/w[s]" });
    if (!compiled.ok) throw new Error(compiled.message);
    expect(ruleMatchesSubject(compiled.rule, { toolName: "Read", path: "/w[s]/a/x" })).toBe(true);
    expect(ruleMatchesSubject(compiled.rule, { toolName: "Read", path: "/ws/a/x" })).toBe(false);
  });

  test("a pattern climbing out of its base is refused", () => {
    expect(compileRule("Read(../x/**)", "deny", "userSettings", roots).ok).toBe(false);
  });
});

describe("tool, MCP, WebFetch and Agent rules", () => {
  const cases: Array<[string, RuleSubject, boolean]> = [
    ["Read", { toolName: "Read", path: "/anything" }, true],
    ["Read", { toolName: "Grep" }, true],
    ["Edit", { toolName: "Write" }, true],
    ["Write", { toolName: "Edit" }, false],
    ["TodoWrite", { toolName: "TodoWrite" }, true],
    ["mcp__github", { toolName: "mcp__github__get_issue", mcpServer: "github" }, true],
    ["mcp__github", { toolName: "mcp__gitlab__get_issue", mcpServer: "gitlab" }, false],
    ["mcp__github__*", { toolName: "mcp__github__create_pr", mcpServer: "github" }, true],
    ["mcp__github__get_issue", { toolName: "mcp__github__get_issue", mcpServer: "github" }, true],
    ["mcp__github__get_issue", { toolName: "mcp__github__create_pr", mcpServer: "github" }, false],
    ["WebFetch(domain:example.com)", { toolName: "WebFetch", hostname: "example.com" }, true],
    ["WebFetch(domain:example.com)", { toolName: "WebFetch", hostname: "evil-example.com" }, false],
    ["WebFetch(domain:example.com)", { toolName: "WebFetch", hostname: "api.example.com" }, false],
    ["WebFetch(domain:*.example.com)", { toolName: "WebFetch", hostname: "api.example.com" }, true],
    ["WebFetch(domain:*.example.com)", { toolName: "WebFetch", hostname: "example.com" }, false],
    ["WebFetch", { toolName: "WebFetch", hostname: "x.org" }, true],
    ["Agent(Explore)", { toolName: "Agent", subagentType: "Explore" }, true],
    ["Task(Explore)", { toolName: "Agent", subagentType: "Plan" }, false],
  ];
  test.each(cases)("%s on %j → %s", (text, subject, expected) => {
    expect(ruleMatchesSubject(rule(text), subject)).toBe(expected);
  });

  test.each(["mcp__x(abc)", "WebFetch(https://x)", "TodoWrite(x)", "Read*", "Read(~/x)"])("unsupported rule %s is refused", (text) => {
    const result = compileRule(text, "allow", "userSettings", text === "Read(~/x)" ? { projectRoot: "/ws" } : roots);
    expect(result.ok).toBe(false);
  });
});
