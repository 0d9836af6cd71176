import { describe, expect, it } from "vitest";
import { parsePrintArgs, UsageError } from "./args.ts";

describe("parsePrintArgs", () => {
  it("reads Claude Code's print-mode flags", () => {
    const args = parsePrintArgs(
      [
        "-p",
        "fix it",
        "--output-format",
        "stream-json",
        "--verbose",
        "--permission-mode",
        "acceptEdits",
        "--allowedTools",
        "Read Bash(git status:*),Edit",
        "--disallowedTools",
        "Bash(rm:*)",
        "--tools",
        "Read,Grep",
        "--max-turns",
        "3",
        "--task-budget",
        "400000",
        "--resume",
        "abc-123",
      ],
      undefined,
    );
    expect(args).toMatchObject({
      prompt: "fix it",
      outputFormat: "stream-json",
      verbose: true,
      permissionMode: "acceptEdits",
      allowedTools: ["Read", "Bash(git status:*)", "Edit"],
      disallowedTools: ["Bash(rm:*)"],
      tools: ["Read", "Grep"],
      maxTurns: 3,
      taskBudget: 400_000,
      resume: "abc-123",
    });
  });

  it("takes the prompt from stdin when -p has none", () => {
    expect(parsePrintArgs(["-p", "--output-format", "json"], "from stdin\n")).toMatchObject({ prompt: "from stdin", outputFormat: "json" });
  });

  it("refuses bad values with a clear message", () => {
    expect(() => parsePrintArgs(["-p", "x", "--output-format", "xml"], undefined)).toThrow(UsageError);
    expect(() => parsePrintArgs(["-p", "x", "--permission-mode", "yolo"], undefined)).toThrow(/--permission-mode must be one of/);
    expect(() => parsePrintArgs(["-p", "x", "--max-turns", "0"], undefined)).toThrow(/positive integer/);
    expect(() => parsePrintArgs(["-p", "x", "--task-budget", "lots"], undefined)).toThrow(/--task-budget must be a positive number of tokens/);
    expect(() => parsePrintArgs(["-p", "x", "--no-such-flag"], undefined)).toThrow(UsageError);
    expect(() => parsePrintArgs(["-p"], "")).toThrow(/No prompt given/);
  });
});
