import { spawn } from "node:child_process";
import { chmod, mkdir, mkdtemp, readdir, realpath, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { WorkspacePlaceholders } from "./placeholders.ts";

let base: string;
let root: string;
let state: string;

beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "cairn-placeholders-test-")));
  root = join(base, "ws");
  state = join(base, "state");
  await mkdir(root);
  await writeFile(join(root, "hello.txt"), "hi\n");
});

afterEach(() => rm(base, { recursive: true, force: true }));

const entries = async () => (await readdir(root)).sort();
const inRoot = (...names: string[]) => names.map((name) => join(root, name));

describe("WorkspacePlaceholders", () => {
  it("makes the absent names empty directories while held and removes only those once released", async () => {
    await writeFile(join(root, ".bashrc"), "# mine\n");
    const placeholders = new WorkspacePlaceholders(state);
    const lease = await placeholders.hold(inRoot(".bashrc", ".mcp.json", ".vscode"));
    expect(await entries()).toEqual([".bashrc", ".mcp.json", ".vscode", "hello.txt"]);
    expect((await stat(join(root, ".mcp.json"))).isDirectory()).toBe(true);
    expect(await readdir(join(root, ".vscode"))).toEqual([]);
    await lease.release();
    await lease.release();
    expect(await entries()).toEqual([".bashrc", "hello.txt"]);
    // The state directory is this user's alone.
    expect((await stat(state)).mode & 0o777).toBe(0o700);
  });

  it("keeps a placeholder while any lease on it is held, across instances (as in two processes)", async () => {
    const first = await new WorkspacePlaceholders(state).hold(inRoot(".mcp.json", ".idea"));
    const second = await new WorkspacePlaceholders(state).hold(inRoot(".mcp.json"));
    await first.release();
    expect(await entries()).toEqual([".mcp.json", "hello.txt"]);
    await second.release();
    expect(await entries()).toEqual(["hello.txt"]);
  });

  it("leaves a placeholder someone put something in, or replaced", async () => {
    const lease = await new WorkspacePlaceholders(state).hold(inRoot(".vscode", ".idea"));
    await writeFile(join(root, ".vscode", "settings.json"), "{}");
    await rm(join(root, ".idea"), { recursive: true });
    await mkdir(join(root, ".idea"));
    await lease.release();
    expect(await entries()).toEqual([".idea", ".vscode", "hello.txt"]);
    expect(await readdir(join(root, ".vscode"))).toEqual(["settings.json"]);
  });

  it("removes what a process killed while holding left behind, at the next change or sweep", async () => {
    const module = fileURLToPath(new URL("./placeholders.ts", import.meta.url));
    const script = `import { WorkspacePlaceholders } from ${JSON.stringify(module)};
await new WorkspacePlaceholders(${JSON.stringify(state)}).hold(${JSON.stringify(inRoot(".bashrc", ".claude"))});
console.log("held");
setInterval(() => undefined, 1000);`;
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "inherit"] });
    const closed = new Promise((resolve) => child.once("close", resolve));
    await new Promise<void>((resolve, reject) => {
      child.stdout.on("data", (chunk: Buffer) => (chunk.toString().includes("held") ? resolve() : undefined));
      child.once("error", reject);
      child.once("exit", () => reject(new Error("the holding process ended early")));
    });
    expect(await entries()).toEqual([".bashrc", ".claude", "hello.txt"]);
    // While it lives, its lease counts.
    await new WorkspacePlaceholders(state).sweep();
    expect(await entries()).toEqual([".bashrc", ".claude", "hello.txt"]);
    child.kill("SIGKILL");
    await closed;
    await new WorkspacePlaceholders(state).sweep();
    expect(await entries()).toEqual(["hello.txt"]);
  });

  it("refuses a state directory others can reach", async () => {
    await mkdir(state);
    await chmod(state, 0o777);
    await expect(new WorkspacePlaceholders(state).hold(inRoot(".bashrc"))).rejects.toThrow(/mode 700/);
    expect(await entries()).toEqual(["hello.txt"]);
  });
});
