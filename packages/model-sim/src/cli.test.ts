import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it, onTestFinished } from "vitest";
import { parseCliArgs, UsageError } from "./cli.ts";
import { baseRequest } from "./test-helpers.ts";

const binPath = fileURLToPath(new URL("../bin/model-sim.js", import.meta.url));

type Running = { child: ChildProcess; url: string };

/** Starts the real bin under plain Node and waits for its MODEL_SIM_URL line. */
function runBin(args: string[]): Promise<Running> {
  const child = spawn(process.execPath, [binPath, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  onTestFinished(() => {
    if (child.exitCode === null) child.kill("SIGKILL");
  });
  return new Promise((resolve, reject) => {
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      const url = /^MODEL_SIM_URL=(\S+)$/m.exec(stdout)?.[1];
      if (url) resolve({ child, url });
    });
    child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.once("exit", (code) => reject(new Error(`model-sim exited with ${code}: ${stderr}`)));
  });
}

function exitOf(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.once("exit", (code) => resolve(code)));
}

async function scenarioFile(content: unknown): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), "model-sim-cli-"));
  onTestFinished(() => rm(directory, { recursive: true, force: true }));
  const file = join(directory, "scenario.json");
  await writeFile(file, JSON.stringify(content));
  return file;
}

describe("parseCliArgs", () => {
  it("applies defaults and converts numbers", () => {
    expect(parseCliArgs([])).toMatchObject({ host: "127.0.0.1", port: 0, demo: false, chunkDelayMs: 0, textChunkSize: 16 });
    expect(parseCliArgs(["--port", "8123", "--chunk-delay-ms", "5", "--demo"])).toMatchObject({
      port: 8123,
      chunkDelayMs: 5,
      demo: true,
    });
  });

  it("rejects bad values, unknown flags and --demo with --scenario", () => {
    expect(() => parseCliArgs(["--port", "http"])).toThrow(UsageError);
    expect(() => parseCliArgs(["--verbose"])).toThrow(/Unknown option/);
    expect(() => parseCliArgs(["--demo", "--scenario", "a.json"])).toThrow(/either/);
  });
});

describe("bin/model-sim.js", () => {
  it("serves a scenario file, prints its URL and exits cleanly on SIGTERM", async () => {
    const file = await scenarioFile({ turns: [{ content: [{ type: "text", text: "from the file" }] }] });
    const { child, url } = await runBin(["--port", "0", "--scenario", file]);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    const response = await fetch(`${url}/v1/messages`, { method: "POST", body: JSON.stringify(baseRequest) });
    expect(await response.json()).toMatchObject({ content: [{ type: "text", text: "from the file" }] });

    const exited = exitOf(child);
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  });

  it("runs the demo model", async () => {
    const { url } = await runBin(["--demo"]);
    const response = await fetch(`${url}/v1/messages`, { method: "POST", body: JSON.stringify(baseRequest) });
    const message = (await response.json()) as { content: Array<{ text: string }> };
    expect(message.content[0]?.text).toMatch(/^\[Demo model\] /);
  });

  it("exits with a clear message for an invalid scenario file", async () => {
    const file = await scenarioFile({ turns: [{ content: [{ type: "txt" }] }] });
    await expect(runBin(["--scenario", file])).rejects.toThrow(/exited with 2: model-sim: invalid scenario file .*turns\[0\]/s);
  });
});
