import { describe, expect, it } from "vitest";
import { z } from "zod";
import { builtinTools } from "./index.ts";

/** Claude Code's tool names, input fields and required fields: the contract models are trained on. */
const contract: Record<string, { properties: string[]; required: string[]; readOnly: boolean }> = {
  Read: { properties: ["file_path", "offset", "limit"], required: ["file_path"], readOnly: true },
  Write: { properties: ["file_path", "content"], required: ["file_path", "content"], readOnly: false },
  Edit: { properties: ["file_path", "old_string", "new_string", "replace_all"], required: ["file_path", "old_string", "new_string"], readOnly: false },
  Glob: { properties: ["pattern", "path"], required: ["pattern"], readOnly: true },
  Grep: {
    properties: ["pattern", "path", "glob", "output_mode", "-B", "-A", "-C", "-n", "-i", "type", "head_limit", "multiline"],
    required: ["pattern"],
    readOnly: true,
  },
  Bash: { properties: ["command", "timeout", "description", "run_in_background"], required: ["command"], readOnly: false },
  BashOutput: { properties: ["bash_id", "filter"], required: ["bash_id"], readOnly: true },
  KillShell: { properties: ["shell_id"], required: ["shell_id"], readOnly: false },
  TodoWrite: { properties: ["todos"], required: ["todos"], readOnly: false },
  EnterPlanMode: { properties: [], required: [], readOnly: false },
  ExitPlanMode: { properties: ["plan"], required: ["plan"], readOnly: false },
};

describe("builtinTools", () => {
  it("returns every tool under Claude Code's name", () => {
    expect(builtinTools().map((tool) => tool.name)).toEqual(Object.keys(contract));
  });

  it("exposes Claude Code's input schema to the model, as the request builder derives it", () => {
    for (const tool of builtinTools()) {
      const schema = z.toJSONSchema(tool.inputSchema, { io: "input" }) as { properties: Record<string, unknown>; required?: string[] };
      const expected = contract[tool.name];
      expect(Object.keys(schema.properties), tool.name).toEqual(expected?.properties);
      expect(schema.required ?? [], tool.name).toEqual(expected?.required);
      expect(tool.description.length, tool.name).toBeGreaterThan(50);
    }
  });

  it("marks reading tools read-only and concurrency-safe, the others neither", () => {
    const samples: Record<string, unknown> = {
      Read: { file_path: "/w/a" },
      Write: { file_path: "/w/a", content: "" },
      Edit: { file_path: "/w/a", old_string: "a", new_string: "b", replace_all: false },
      Glob: { pattern: "*" },
      Grep: { pattern: "x" },
      Bash: { command: "ls" },
      BashOutput: { bash_id: "b" },
      KillShell: { shell_id: "b" },
      TodoWrite: { todos: [] },
      EnterPlanMode: {},
      ExitPlanMode: { plan: "p" },
    };
    for (const tool of builtinTools()) {
      const readOnly = contract[tool.name]?.readOnly;
      expect(tool.isReadOnly(samples[tool.name]), tool.name).toBe(readOnly);
      expect(tool.isConcurrencySafe(samples[tool.name]), tool.name).toBe(readOnly);
    }
  });

  it("passes the read-only analyzer through to Bash", () => {
    const bash = builtinTools({ isReadOnlyCommand: (command) => command.startsWith("git log") }).find((tool) => tool.name === "Bash");
    expect(bash?.isReadOnly({ command: "git log -1" })).toBe(true);
    expect(bash?.isConcurrencySafe({ command: "git push" })).toBe(false);
  });

  it("names the file a file tool touches, for path rules", () => {
    const tools = builtinTools();
    const pathOf = (name: string, input: unknown) => tools.find((tool) => tool.name === name)?.getPath?.(input);
    expect(pathOf("Read", { file_path: "/w/a.ts" })).toBe("/w/a.ts");
    expect(pathOf("Write", { file_path: "/w/b.ts", content: "" })).toBe("/w/b.ts");
    expect(pathOf("Edit", { file_path: "/w/c.ts", old_string: "", new_string: "" })).toBe("/w/c.ts");
  });
});
