import { mkdir, readFile, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startModelSim, type ModelSim } from "@cairn/model-sim";
import { runCairn } from "../support/cli.ts";
import { useTempDirs } from "../support/use-temp-dirs.ts";

const tempDir = useTempDirs();

let sim: ModelSim;
let cairnHome: string;
type Line = Record<string, any>;

beforeAll(async () => {
  sim = await startModelSim();
  cairnHome = await tempDir("perm-home");
});
afterAll(async () => sim.close());

async function workspaceWith(settings?: object): Promise<string> {
  const workspace = await tempDir("perm-ws");
  await writeFile(join(workspace, "keep.txt"), "original\n");
  if (settings) {
    await mkdir(join(workspace, ".claude"));
    await writeFile(join(workspace, ".claude", "settings.json"), JSON.stringify(settings, null, 2));
  }
  return workspace;
}

function run(workspace: string, args: string[]) {
  return runCairn(["-p", "do it", "--output-format", "json", ...args], {
    cwd: workspace,
    env: { ANTHROPIC_BASE_URL: sim.url, ANTHROPIC_API_KEY: "test", CAIRN_HOME: cairnHome },
  });
}

const lastToolResult = (): Line => ((sim.requests.at(-1)!.body as Line).messages.at(-1).content as Line[])[0]!;
const done = { content: [{ type: "text" as const, text: "ok" }] };
const bash = (command: string) => ({ content: [{ type: "tool_use" as const, id: "toolu_bash", name: "Bash", input: { command } }] });

describe("permissions and hooks through cairn -p", () => {
  it("a denied Bash command leaves the workspace untouched and the run ends normally", async () => {
    const workspace = await workspaceWith({ permissions: { deny: ["Bash(rm:*)"] } });
    sim.setScenario({ turns: [bash("rm keep.txt"), done] });
    const result = await run(workspace, []);
    expect(result.code).toBe(0);
    expect(result.lines.at(-1)).toMatchObject({ subtype: "success", permission_denials: [{ tool_name: "Bash", tool_input: { command: "rm keep.txt" } }] });
    expect(lastToolResult()).toMatchObject({ is_error: true });
    expect(await readFile(join(workspace, "keep.txt"), "utf8")).toBe("original\n");
  });

  it("a smuggled second command is not allowed by a prefix rule", async () => {
    const workspace = await workspaceWith({ permissions: { allow: ["Bash(ls:*)"] } });
    sim.setScenario({ turns: [bash("ls && rm keep.txt"), done] });
    const result = await run(workspace, []);
    expect(result.lines.at(-1)!.permission_denials).toHaveLength(1);
    expect(await readFile(join(workspace, "keep.txt"), "utf8")).toBe("original\n");
  });

  it("an allow rule from .claude/settings.json is honoured", async () => {
    const workspace = await workspaceWith({ permissions: { allow: ["Bash(touch:*)"] } });
    sim.setScenario({ turns: [bash("touch made-by-agent.txt"), done] });
    const result = await run(workspace, []);
    expect(result.lines.at(-1)!.permission_denials).toEqual([]);
    expect(await readdir(workspace)).toContain("made-by-agent.txt");
  });

  it("a PreToolUse hook that exits 2 blocks a Write and the model receives its reason", async () => {
    const workspace = await workspaceWith({
      hooks: { PreToolUse: [{ matcher: "Write|Edit", hooks: [{ type: "command", command: "echo 'writes are frozen by policy' >&2; exit 2" }] }] },
    });
    sim.setScenario({
      turns: [{ content: [{ type: "tool_use", id: "toolu_w", name: "Write", input: { file_path: join(workspace, "new.txt"), content: "x" } }] }, done],
    });
    const result = await run(workspace, ["--permission-mode", "acceptEdits"]);
    expect(result.code).toBe(0);
    expect(lastToolResult()).toMatchObject({ is_error: true });
    expect(String(lastToolResult().content)).toContain("writes are frozen by policy");
    expect(await readdir(workspace)).not.toContain("new.txt");
  });

  it("a PostToolUse hook receives the documented JSON on stdin", async () => {
    const workspace = await workspaceWith();
    const capture = join(workspace, "hook-input.json");
    await mkdir(join(workspace, ".claude"));
    await writeFile(
      join(workspace, ".claude", "settings.json"),
      JSON.stringify({ hooks: { PostToolUse: [{ matcher: "Read", hooks: [{ type: "command", command: `cat > '${capture}'` }] }] } }),
    );
    sim.setScenario({
      turns: [{ content: [{ type: "tool_use", id: "toolu_r", name: "Read", input: { file_path: join(workspace, "keep.txt") } }] }, done],
    });
    const result = await run(workspace, []);
    expect(result.code).toBe(0);
    const input = JSON.parse(await readFile(capture, "utf8")) as Line;
    expect(input).toMatchObject({
      hook_event_name: "PostToolUse",
      tool_name: "Read",
      tool_input: { file_path: join(workspace, "keep.txt") },
      cwd: workspace,
      session_id: result.lines.at(-1)!.session_id,
    });
    expect(input.transcript_path).toMatch(/\.jsonl$/);
    expect(input.tool_response).toBeDefined();
  });

  it("--permission-mode plan refuses edits", async () => {
    const workspace = await workspaceWith();
    sim.setScenario({
      turns: [{ content: [{ type: "tool_use", id: "toolu_w", name: "Write", input: { file_path: join(workspace, "keep.txt"), content: "changed" } }] }, done],
    });
    const result = await run(workspace, ["--permission-mode", "plan"]);
    expect(result.code).toBe(0);
    expect(lastToolResult()).toMatchObject({ is_error: true });
    expect(await readFile(join(workspace, "keep.txt"), "utf8")).toBe("original\n");
  });
});
