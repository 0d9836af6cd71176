import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startModelSim, type ModelSim } from "@cairn/model-sim";
import { runCairn } from "../support/cli.ts";
import { useTempDirs } from "../support/use-temp-dirs.ts";
import { everythingServer } from "./mcp-support.ts";

const tempDir = useTempDirs();

let sim: ModelSim;
let workspace: string;
let env: Record<string, string>;
let configFile: string;

type Line = Record<string, any>;
const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });
const call = (id: string, name: string, input: Record<string, unknown>) => ({ content: [{ type: "tool_use" as const, id, name, input }] });
const everything = { command: process.execPath, args: [everythingServer, "stdio"] };

beforeAll(async () => {
  sim = await startModelSim();
  workspace = await tempDir("mcp-cli-ws");
  await mkdir(join(workspace, "config"));
  configFile = join(workspace, "config", "mcp.json");
  await writeFile(configFile, JSON.stringify({ mcpServers: { everything } }));
  env = { ANTHROPIC_BASE_URL: sim.url, ANTHROPIC_API_KEY: "test", CAIRN_HOME: await tempDir("mcp-cli-home") };
});
afterAll(async () => {
  await sim.close();
});

const toolResultIn = (body: Line, id: string) =>
  body.messages.flatMap((message: Line) => (Array.isArray(message.content) ? message.content : [])).find((block: Line) => block.tool_use_id === id);

describe("cairn -p with MCP servers", () => {
  it("starts the --mcp-config servers, reports them in the init line and lets the model call mcp__everything__echo", async () => {
    sim.setScenario({ turns: [call("toolu_echo", "mcp__everything__echo", { message: "hi from the model" }), text("The server answered.")] });
    const run = await runCairn(
      ["-p", "Echo something", "--mcp-config", configFile, "--allowedTools", "mcp__everything__echo", "--output-format", "stream-json", "--verbose"],
      { cwd: workspace, env },
    );
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const init = run.lines[0]!;
    expect(init).toMatchObject({ type: "system", subtype: "init", mcp_servers: [{ name: "everything", status: "connected" }] });
    expect(init.tools).toEqual(expect.arrayContaining(["Read", "Agent", "mcp__everything__echo", "mcp__everything__get-sum"]));

    const first = sim.requests.at(-2)!.body as Line;
    const echoTool = first.tools.find((tool: Line) => tool.name === "mcp__everything__echo");
    expect(echoTool).toMatchObject({
      description: "Echoes back the input string",
      input_schema: { type: "object", properties: { message: { type: "string" } } },
    });
    const second = sim.requests.at(-1)!.body as Line;
    expect(toolResultIn(second, "toolu_echo")).toMatchObject({ type: "tool_result", content: "Echo: hi from the model" });
    expect(run.lines.at(-1)).toMatchObject({ type: "result", subtype: "success", result: "The server answered.", permission_denials: [] });
  });

  it("warns on stderr when a stdio server runs outside the sandbox because the settings turn it off", async () => {
    sim.setScenario({ turns: [text("Nothing to do.")] });
    const settings = JSON.stringify({ sandbox: { enabled: false } });
    const run = await runCairn(["-p", "Hello", "--mcp-config", configFile, "--settings", settings, "--output-format", "json"], { cwd: workspace, env });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('cairn: MCP server "everything": not sandboxed: the settings turn the sandbox off');
  });

  it("takes inline JSON, and a deny rule stops the call before it reaches the server", async () => {
    sim.setScenario({ turns: [call("toolu_echo", "mcp__everything__echo", { message: "blocked" }), text("I was not allowed.")] });
    const inline = JSON.stringify({ mcpServers: { everything } });
    const run = await runCairn(["-p", "Echo", "--mcp-config", inline, "--disallowedTools", "mcp__everything", "--output-format", "json"], {
      cwd: workspace,
      env,
    });
    expect(run.code).toBe(0);
    expect(run.lines.at(-1)!.permission_denials).toEqual([
      { tool_name: "mcp__everything__echo", tool_use_id: "toolu_echo", tool_input: { message: "blocked" } },
    ]);
    expect(toolResultIn(sim.requests.at(-1)!.body as Line, "toolu_echo")).toMatchObject({
      is_error: true,
      content: expect.stringContaining("denied by the rule mcp__everything"),
    });
  });

  it("starts project servers from .mcp.json (cairn -p trusts the directory) and shows a failing one as failed", async () => {
    const project = await tempDir("mcp-cli-project");
    await writeFile(
      join(project, ".mcp.json"),
      JSON.stringify({ mcpServers: { "my everything": everything, broken: { command: join(project, "missing-binary") } } }),
    );
    sim.setScenario({ turns: [call("toolu_sum", "mcp__my_everything__get-sum", { a: 2, b: 3 }), text("5")] });
    const run = await runCairn(["-p", "Add", "--allowedTools", "mcp__my_everything__get-sum", "--output-format", "stream-json", "--verbose"], {
      cwd: project,
      env,
    });
    expect(run.code).toBe(0);
    expect(run.lines[0]!.mcp_servers).toEqual([
      { name: "my everything", status: "connected" },
      { name: "broken", status: "failed" },
    ]);
    expect(run.stderr).toContain('MCP server "broken" failed to start');
    expect(JSON.stringify(toolResultIn(sim.requests.at(-1)!.body as Line, "toolu_sum").content)).toContain("5");
  });

  it("offers ToolSearch instead of the schemas when they would take more than a tenth of the context window", async () => {
    sim.setScenario({
      turns: [call("toolu_search", "ToolSearch", { query: "echo back" }), call("toolu_echo", "mcp__everything__echo", { message: "found" }), text("Done.")],
    });
    const run = await runCairn(["-p", "Echo via search", "--mcp-config", configFile, "--allowedTools", "mcp__everything__echo", "--output-format", "json"], {
      cwd: workspace,
      env: { ...env, CAIRN_CONTEXT_WINDOW: "10000" },
    });
    expect(run.code).toBe(0);
    const [first, second, third] = sim.requests.slice(-3).map((request) => request.body as Line);
    const names = (body: Line) => body.tools.map((tool: Line) => tool.name).filter((name: string) => name.startsWith("mcp__") || name === "ToolSearch");
    expect(names(first!)).toEqual(["ToolSearch"]);
    expect(names(second!)).toEqual(["ToolSearch", "mcp__everything__echo"]);
    expect(toolResultIn(third!, "toolu_echo")).toMatchObject({ content: "Echo: found" });
    expect(run.lines.at(-1)).toMatchObject({ subtype: "success", result: "Done." });
  });

  it("refuses to start with an unreadable --mcp-config", async () => {
    const run = await runCairn(["-p", "x", "--mcp-config", join(workspace, "nope.json")], { cwd: workspace, env });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("--mcp-config: cannot read");
  });
});
