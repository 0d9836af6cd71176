import { chmod, mkdir, readFile, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startModelSim, type ModelSim } from "@cairn/model-sim";
import { runCairn } from "../support/cli.ts";
import { useTempDirs } from "../support/use-temp-dirs.ts";

const tempDir = useTempDirs();

// Each hook event end to end: `cairn -p` runs real hook scripts from the workspace's settings, and the
// assertions read what reached the model in the simulator's request log.

let sim: ModelSim;
let cairnHome: string;
type Line = Record<string, any>;

beforeAll(async () => {
  sim = await startModelSim();
  cairnHome = await tempDir("hooks-home");
});
afterAll(async () => sim.close());

type HookSpec = { matcher?: string; command: string; timeout?: number };

/** A workspace whose `.claude/settings.json` runs `hooks`; `scripts` are written to `.claude/hooks/` and made executable. */
async function workspaceWith(hooks: Record<string, HookSpec[]>, scripts: Record<string, string> = {}): Promise<string> {
  const workspace = await tempDir("hooks-ws");
  await mkdir(join(workspace, ".claude", "hooks"), { recursive: true });
  for (const [name, body] of Object.entries(scripts)) {
    const path = join(workspace, ".claude", "hooks", name);
    await writeFile(path, `#!/bin/sh\n${body}\n`);
    await chmod(path, 0o755);
  }
  const settings = Object.fromEntries(
    Object.entries(hooks).map(([event, specs]) => [
      event,
      specs.map((spec) => ({
        ...(spec.matcher ? { matcher: spec.matcher } : {}),
        hooks: [{ type: "command", command: spec.command, ...(spec.timeout ? { timeout: spec.timeout } : {}) }],
      })),
    ]),
  );
  await writeFile(join(workspace, ".claude", "settings.json"), JSON.stringify({ hooks: settings }, null, 2));
  return workspace;
}

const script = (name: string) => `sh "$CLAUDE_PROJECT_DIR/.claude/hooks/${name}"`;

function run(workspace: string, args: string[], prompt = "do it") {
  return runCairn(["-p", prompt, "--output-format", "json", ...args], {
    cwd: workspace,
    env: { ANTHROPIC_BASE_URL: sim.url, ANTHROPIC_API_KEY: "test", CAIRN_HOME: cairnHome },
    timeoutMs: 90_000,
  });
}

/** Everything the model was sent in request `index` of this run, as one string. */
const sentText = (index: number): string => JSON.stringify((sim.requests[index]!.body as Line).messages);
const toolResults = (index: number): Line[] =>
  ((sim.requests[index]!.body as Line).messages.at(-1).content as Line[]).filter((block) => block.type === "tool_result");
const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });

async function hookLines(transcriptPath: string): Promise<Line[]> {
  return (await readFile(transcriptPath, "utf8"))
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Line)
    .filter((line) => line.type === "cairn-hooks");
}

describe("every hook event through cairn -p", () => {
  it("SessionStart, UserPromptSubmit, PreToolUse, PermissionRequest, PostToolUse, PostToolUseFailure, Stop and SessionEnd", async () => {
    const workspace = await workspaceWith(
      {
        SessionStart: [{ matcher: "startup", command: "echo 'Plain start context: release freeze'" }, { command: script("session-start.sh") }],
        UserPromptSubmit: [{ command: script("prompt.sh") }],
        PreToolUse: [{ matcher: "Write|Edit", command: script("pre-write.sh") }],
        PermissionRequest: [{ matcher: "Bash", command: script("permission.sh") }],
        PostToolUse: [{ matcher: "Bash", command: script("post-bash.sh") }],
        PostToolUseFailure: [{ matcher: "Read", command: script("read-failed.sh") }],
        Stop: [{ command: script("stop.sh") }],
        SessionEnd: [{ command: script("session-end.sh") }],
      },
      {
        "session-start.sh": `cat > "$CAIRN_PROJECT_DIR/session-start.json"; printf '%s' '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"JSON start context: use pnpm"}}'`,
        "prompt.sh": `printf '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"dirs %s %s"}}' "$CLAUDE_PROJECT_DIR" "$CAIRN_PROJECT_DIR"`,
        "pre-write.sh": `printf '%s' '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"generated files are read-only"}}'`,
        "permission.sh": `cat > "$CAIRN_PROJECT_DIR/permission-input.json"; printf '%s' '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedInput":{"command":"touch allowed-by-hook.txt"}}}}'`,
        "post-bash.sh": `printf '%s' '{"decision":"block","reason":"lint says no","hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"bash context after the call"}}'`,
        "read-failed.sh": `cat > "$CAIRN_PROJECT_DIR/failure-input.json"; printf '%s' '{"hookSpecificOutput":{"hookEventName":"PostToolUseFailure","additionalContext":"hint: the file was renamed to notes.md"}}'`,
        "stop.sh": `input=$(cat); case "$input" in *'"stop_hook_active":false'*) echo 'run the tests too' >&2; exit 2;; esac; exit 0`,
        "session-end.sh": `cat > "$CAIRN_PROJECT_DIR/session-end.json"`,
      },
    );
    const before = sim.requests.length;
    sim.setScenario({
      turns: [
        {
          content: [
            { type: "tool_use", id: "toolu_w", name: "Write", input: { file_path: join(workspace, "gen.ts"), content: "x" } },
            { type: "tool_use", id: "toolu_b", name: "Bash", input: { command: "touch asked-for.txt" } },
            { type: "tool_use", id: "toolu_r", name: "Read", input: { file_path: join(workspace, "missing.md") } },
          ],
        },
        text("done"),
        text("tests pass too"),
      ],
    });
    const result = await run(workspace, ["--permission-mode", "acceptEdits"], "ship the release");
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(sim.requests.length - before).toBe(3);

    const first = sentText(before);
    expect(first).toMatch(/Plain start context: release freeze[\s\S]*JSON start context: use pnpm[\s\S]*ship the release[\s\S]*dirs /);
    expect(first).toContain(`dirs ${workspace} ${workspace}`);

    const [write, bash, read] = toolResults(before + 1);
    expect(write).toMatchObject({ tool_use_id: "toolu_w", is_error: true });
    expect(JSON.stringify(write)).toContain("generated files are read-only");
    expect(bash!.tool_use_id).toBe("toolu_b");
    expect(JSON.stringify(bash)).toContain("PostToolUse hook feedback: lint says no");
    expect(JSON.stringify(bash)).toContain("bash context after the call");
    expect(JSON.stringify(read)).toContain("hint: the file was renamed to notes.md");
    const files = await readdir(workspace);
    expect(files).toContain("allowed-by-hook.txt");
    expect(files).not.toContain("asked-for.txt");
    expect(files).not.toContain("gen.ts");

    expect(sentText(before + 2)).toContain("Stop hook feedback:\\nrun the tests too");
    expect(result.lines.at(-1)).toMatchObject({ result: "tests pass too" });

    const start = JSON.parse(await readFile(join(workspace, "session-start.json"), "utf8")) as Line;
    expect(start).toMatchObject({ hook_event_name: "SessionStart", source: "startup", cwd: workspace });
    expect(JSON.parse(await readFile(join(workspace, "permission-input.json"), "utf8"))).toMatchObject({
      hook_event_name: "PermissionRequest",
      tool_name: "Bash",
      tool_input: { command: "touch asked-for.txt" },
    });
    expect(JSON.parse(await readFile(join(workspace, "failure-input.json"), "utf8"))).toMatchObject({
      hook_event_name: "PostToolUseFailure",
      tool_name: "Read",
      is_interrupt: false,
    });
    expect(JSON.parse(await readFile(join(workspace, "session-end.json"), "utf8"))).toMatchObject({ hook_event_name: "SessionEnd", reason: "other" });

    // The session events' runs are on the record for the timeline; the tool hooks are on their calls.
    const recorded = await hookLines(start.transcript_path as string);
    expect(recorded.map((line) => line.event)).toEqual(["SessionStart", "UserPromptSubmit", "Stop", "Stop", "SessionEnd"]);
    expect(recorded[0]!.runs).toHaveLength(2);
    expect(recorded[2]!.runs[0]).toMatchObject({ event: "Stop", outcome: "blocked" });

    // --resume: SessionStart says so.
    sim.setScenario({ turns: [text("resumed"), text("resumed, tests pass")] });
    const resumed = await run(workspace, ["--resume", start.session_id as string], "again");
    expect(resumed.code).toBe(0);
    expect(JSON.parse(await readFile(join(workspace, "session-start.json"), "utf8"))).toMatchObject({ source: "resume", session_id: start.session_id });
  });

  it("UserPromptSubmit exit 2 blocks the prompt before the model sees it", async () => {
    const workspace = await workspaceWith({ UserPromptSubmit: [{ command: "echo 'prompts are paused' >&2; exit 2" }] });
    const before = sim.requests.length;
    sim.setScenario({ turns: [text("never")] });
    const result = await run(workspace, [], "hello");
    expect(result.code).toBe(0);
    expect(sim.requests.length).toBe(before);
  });

  it("continue:false from a PreToolUse hook stops the run: the call does not run and the model is not called again", async () => {
    const workspace = await workspaceWith({ PreToolUse: [{ matcher: "Bash", command: `printf '%s' '{"continue":false,"stopReason":"budget reached"}'` }] });
    const before = sim.requests.length;
    sim.setScenario({ turns: [{ content: [{ type: "tool_use", id: "toolu_b", name: "Bash", input: { command: "touch never.txt" } }] }, text("unreachable")] });
    const result = await run(workspace, ["--allowedTools", "Bash"]);
    expect(result.code).toBe(0);
    expect(sim.requests.length - before).toBe(1);
    expect(await readdir(workspace)).not.toContain("never.txt");
  });

  it("a hung hook is killed at its timeout and reported; non-JSON output is plain output with a notice", async () => {
    const workspace = await workspaceWith({
      PreToolUse: [{ matcher: "Read", command: "sleep 30", timeout: 1 }],
      PostToolUse: [{ matcher: "Read", command: "echo formatted nothing" }],
    });
    await writeFile(join(workspace, "notes.md"), "hello\n");
    const before = sim.requests.length;
    sim.setScenario({
      turns: [{ content: [{ type: "tool_use", id: "toolu_r", name: "Read", input: { file_path: join(workspace, "notes.md") } }] }, text("read it")],
    });
    const started = Date.now();
    const result = await runCairn(["-p", "read", "--verbose"], {
      cwd: workspace,
      env: { ANTHROPIC_BASE_URL: sim.url, ANTHROPIC_API_KEY: "test", CAIRN_HOME: cairnHome },
    });
    expect(Date.now() - started).toBeLessThan(25_000);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("timed out after 1 s and was stopped");
    expect(result.stderr).toContain("printed output that is not JSON; it was treated as plain output");
    expect(JSON.stringify(toolResults(before + 1))).toContain("hello");
  });

  it("/compact runs PreCompact (trigger manual, the instructions) before the summary and SessionStart (source compact) after it", async () => {
    const workspace = await workspaceWith(
      {
        PreCompact: [{ matcher: "manual", command: script("pre-compact.sh") }],
        SessionStart: [{ matcher: "compact", command: script("after-compact.sh") }],
      },
      {
        "pre-compact.sh": `cat > "$CAIRN_PROJECT_DIR/pre-compact.json"; printf '%s' '{"hookSpecificOutput":{"hookEventName":"PreCompact","additionalContext":"Keep every file path that was edited."}}'`,
        "after-compact.sh": `cat > "$CAIRN_PROJECT_DIR/after-compact.json"; printf '%s' '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"After compaction: the release freeze still holds."}}'`,
      },
    );
    sim.setScenario({ turns: [text("noted: the API lives in src/api")] });
    const first = await run(workspace, [], "remember that the API lives in src/api");
    expect(first.code).toBe(0);
    const sessionId = first.lines.at(-1)!.session_id as string;

    const beforeCompact = sim.requests.length;
    sim.setScenario({ turns: [text("Summary: the API lives in src/api.")] });
    const compacted = await run(workspace, ["--resume", sessionId], "/compact focus on the API");
    expect(compacted.stderr).toBe("");
    expect(compacted.code).toBe(0);
    expect(sim.requests.length - beforeCompact).toBe(1);
    // The summary request carries the user's instructions and what the PreCompact hook added.
    const summaryRequest = JSON.stringify(sim.requests[beforeCompact]!.body);
    expect(summaryRequest).toContain("focus on the API");
    expect(summaryRequest).toContain("Keep every file path that was edited.");
    expect(JSON.parse(await readFile(join(workspace, "pre-compact.json"), "utf8"))).toMatchObject({
      hook_event_name: "PreCompact",
      trigger: "manual",
      custom_instructions: "focus on the API",
      session_id: sessionId,
    });
    const afterCompact = JSON.parse(await readFile(join(workspace, "after-compact.json"), "utf8")) as Line;
    expect(afterCompact).toMatchObject({ hook_event_name: "SessionStart", source: "compact", session_id: sessionId });

    // The next prompt sees the summary and the SessionStart context, not the compacted-away turn.
    const beforeNext = sim.requests.length;
    sim.setScenario({ turns: [text("on it")] });
    const next = await run(workspace, ["--resume", sessionId], "what next?");
    expect(next.code).toBe(0);
    const sent = sentText(beforeNext);
    expect(sent).toContain("Summary: the API lives in src/api.");
    expect(sent).toContain("After compaction: the release freeze still holds.");
    expect(sent).not.toContain("remember that the API lives in src/api");

    const recorded = await hookLines(afterCompact.transcript_path as string);
    expect(recorded.map((line) => line.event)).toEqual(expect.arrayContaining(["PreCompact", "SessionStart"]));
    expect(recorded.find((line) => line.event === "PreCompact")!.runs[0]).toMatchObject({ event: "PreCompact", outcome: "ok" });
  });
});
