import { describe, expect, test } from "vitest";
import { formatRuleValue, parseRuleValue, splitToolListFlag } from "./rule-parser.ts";

describe("parseRuleValue", () => {
  test.each([
    ["Bash", { toolName: "Bash" }],
    ["  Read  ", { toolName: "Read" }],
    ["Bash()", { toolName: "Bash" }],
    ["Bash(*)", { toolName: "Bash" }],
    ["Bash(npm run test:*)", { toolName: "Bash", content: "npm run test:*" }],
    ["Bash(ls)", { toolName: "Bash", content: "ls" }],
    ["Read(./secrets/**)", { toolName: "Read", content: "./secrets/**" }],
    ["Edit(/src/**)", { toolName: "Edit", content: "/src/**" }],
    ["Read(//etc/passwd)", { toolName: "Read", content: "//etc/passwd" }],
    ["WebFetch(domain:example.com)", { toolName: "WebFetch", content: "domain:example.com" }],
    ["mcp__github", { toolName: "mcp__github" }],
    ["mcp__github__get_issue", { toolName: "mcp__github__get_issue" }],
    ["mcp__my-server__*", { toolName: "mcp__my-server__*" }],
    ['Bash(python -c "print\\(1\\)")', { toolName: "Bash", content: 'python -c "print(1)"' }],
    ["Bash(echo \\\\)", { toolName: "Bash", content: "echo \\" }],
    ["Bash(echo (x))", { toolName: "Bash", content: "echo (x)" }],
  ])("%s", (rule, expected) => {
    expect(parseRuleValue(rule)).toEqual({ ok: true, value: expected });
  });

  test.each(["", "Bash(", "Bash(ls", "Bash(ls) x", "9tool", "Bash)", "Ba sh", "Bash(ls\\)"])("rejects %j", (rule) => {
    expect(parseRuleValue(rule).ok).toBe(false);
  });

  test("formatRuleValue escapes what parseRuleValue unescapes", () => {
    const value = { toolName: "Bash", content: 'python -c "print(1)"' };
    const text = formatRuleValue(value);
    expect(text).toBe('Bash(python -c "print\\(1\\)")');
    expect(parseRuleValue(text)).toEqual({ ok: true, value });
  });
});

describe("splitToolListFlag", () => {
  test("splits on commas and spaces outside parentheses", () => {
    expect(splitToolListFlag(["Bash(git log:*),Read", "Edit  mcp__x", "Bash(npm run test:*)"])).toEqual([
      "Bash(git log:*)",
      "Read",
      "Edit",
      "mcp__x",
      "Bash(npm run test:*)",
    ]);
  });
});
