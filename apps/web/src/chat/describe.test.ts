import { describe, expect, it } from "vitest";
import { describeDecision, describeReason, formatDuration, formatTokens, toolSummary } from "./describe.ts";

describe("describe", () => {
  it("names the rule and where it comes from", () => {
    expect(describeReason({ type: "rule", rule: "Bash(npm test:*)", source: "projectSettings", behavior: "allow" })).toBe(
      "rule Bash(npm test:*) (allow) from .claude/settings.json",
    );
  });

  it("quotes the user's feedback on a denial and says how long the call waited", () => {
    expect(describeDecision({ behavior: "deny", reason: { type: "user", scope: "reject", feedback: "use tabs" }, waitedMs: 2500 })).toBe(
      "Denied after 2.5 s: you denied it: “use tabs”",
    );
    expect(describeDecision({ behavior: "allow", reason: { type: "mode", mode: "acceptEdits" }, waitedMs: 0 })).toBe("Allowed: acceptEdits mode");
  });

  it("names auto mode's classifier as the source, with its reason", () => {
    expect(describeDecision({ behavior: "deny", reason: { type: "classifier", classifier: "auto-mode", reason: "uploads .env" }, waitedMs: 0 })).toBe(
      "Denied: classifier auto-mode: uploads .env",
    );
  });

  it("formats durations and token counts", () => {
    expect(formatDuration(250)).toBe("250 ms");
    expect(formatDuration(12_400)).toBe("12 s");
    expect(formatDuration(125_000)).toBe("2 min 5 s");
    expect(formatTokens(950)).toBe("950");
    expect(formatTokens(4_200)).toBe("4.2k");
    expect(formatTokens(200_000)).toBe("200k");
  });

  it("summarises a call by what it works on", () => {
    expect(toolSummary("Read", { file_path: "/w/a.ts" })).toBe("/w/a.ts");
    expect(toolSummary("Grep", { pattern: "TODO", path: "/w/src" })).toBe("TODO in /w/src");
    expect(toolSummary("Bash", { command: "ls -la" })).toBe("ls -la");
    expect(toolSummary("Bash", { command: "ls", description: "List files" })).toBe("List files");
    expect(toolSummary("Unknown", 42)).toBe("");
  });
});
