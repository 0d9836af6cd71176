import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { makeFixture } from "../testing/fixture.ts";
import { createSandboxedCommand, programFilesInTemp, type SandboxedCommand } from "./sandboxed-command.ts";

function run(launch: SandboxedCommand, stdin = ""): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(launch.command, launch.args, { cwd: launch.cwd, env: launch.env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

// One Node script per case: writes where it is told, prints what happened, echoes stdin.
const probe = `
const fs = require("node:fs");
const out = {};
for (const given of JSON.parse(process.argv[1])) {
  const target = given.replace(/^\\$HOME/, process.env.HOME).replace(/^\\$TMPDIR/, process.env.TMPDIR);
  try { fs.writeFileSync(target, "x"); out[given] = "written"; } catch (error) { out[given] = error.code; }
}
out.home = process.env.HOME; out.tmp = process.env.TMPDIR; out.key = process.env.ANTHROPIC_API_KEY ?? null; out.cwd = process.cwd();
let input = ""; process.stdin.on("data", (c) => (input += c)); process.stdin.on("end", () => { out.stdin = input; console.log(JSON.stringify(out)); });
`;

describe("createSandboxedCommand", () => {
  it("runs a program with stdio, writing only in the workspace and its private directory", async () => {
    const fixture = await makeFixture();
    process.env.ANTHROPIC_API_KEY = "sk-must-not-leak";
    let launch: SandboxedCommand | undefined;
    try {
      // Beside the workspace and in the host's temp dir (hidden: writes land in a throwaway tmpfs), and in
      // a system directory (visible, read-only). Not this package's directory: a checkout under /tmp is hidden too.
      const visible = `/usr/.cairn-sandboxed-command-probe-${process.pid}`;
      const targets = [
        join(fixture.root, "inside.txt"),
        "$HOME/home.txt",
        "$TMPDIR/tmp.txt",
        join(fixture.outside, "x.txt"),
        "/tmp/cairn-sandboxed-command-outside",
        visible,
      ];
      launch = await createSandboxedCommand({ command: process.execPath, args: ["-e", probe, JSON.stringify(targets)], root: fixture.root, label: "probe" });
      const result = await run(launch, "hello over stdin");
      expect(result.code, result.stderr).toBe(0);
      const out = JSON.parse(result.stdout) as Record<string, string | null>;
      expect(out[join(fixture.root, "inside.txt")]).toBe("written");
      expect(out["$HOME/home.txt"]).toBe("written");
      expect(out["$TMPDIR/tmp.txt"]).toBe("written");
      expect(out.home).toBe(launch.home);
      expect(out.tmp).toBe(launch.tmpDir);
      expect(existsSync(join(launch.home, "home.txt"))).toBe(true);
      expect(out[visible]).toBe("EROFS");
      expect(existsSync(visible)).toBe(false);
      expect(existsSync(join(fixture.outside, "x.txt"))).toBe(false);
      expect(existsSync("/tmp/cairn-sandboxed-command-outside")).toBe(false);
      expect(out.stdin).toBe("hello over stdin");
      expect(out.key).toBeNull();
      expect(out.cwd).toBe(fixture.root);
      expect(await readFile(join(fixture.root, "inside.txt"), "utf8")).toBe("x");
    } finally {
      delete process.env.ANTHROPIC_API_KEY;
      await launch?.dispose();
      await fixture.cleanup();
    }
  });

  it("removes its private directory on dispose, once however often it is called", async () => {
    const fixture = await makeFixture();
    try {
      const launch = await createSandboxedCommand({ command: "/bin/true", root: fixture.root });
      expect(existsSync(launch.home)).toBe(true);
      await Promise.all([launch.dispose(), launch.dispose()]);
      expect(existsSync(launch.home)).toBe(false);
    } finally {
      await fixture.cleanup();
    }
  });

  it("refuses a working directory outside the workspace", async () => {
    const fixture = await makeFixture();
    try {
      await expect(createSandboxedCommand({ command: "/bin/true", root: fixture.root, cwd: fixture.outside })).rejects.toMatchObject({
        code: "outside_workspace",
      });
    } finally {
      await fixture.cleanup();
    }
  });
});

describe("programFilesInTemp", () => {
  it("opens the package tree of a program in the temp dir, and nothing elsewhere", async () => {
    const temp = await realpath(await mkdtemp(join(tmpdir(), "cairn-program-files-")));
    try {
      const script = join(temp, "clone", "node_modules", "@scope", "server", "dist", "index.js");
      const loose = join(temp, "tools", "server.mjs");
      const bare = join(temp, "lone.js");
      for (const file of [script, loose, bare]) {
        await mkdir(dirname(file), { recursive: true });
        await writeFile(file, "");
      }
      expect(await programFilesInTemp([process.execPath, script], temp)).toEqual([join(temp, "clone", "node_modules")]);
      expect(await programFilesInTemp([loose], temp)).toEqual([join(temp, "tools")]);
      expect(await programFilesInTemp([bare], temp)).toEqual([bare]);
      // Outside the temp dir, relative, or missing: left to the policy.
      expect(await programFilesInTemp(["/usr/bin/env", "relative.js", join(temp, "missing.js")], temp)).toEqual([]);
    } finally {
      await rm(temp, { recursive: true, force: true });
    }
  });

  it("lets a sandboxed program installed in the temp dir run", async () => {
    const fixture = await makeFixture();
    const temp = await realpath(await mkdtemp(join(tmpdir(), "cairn-program-run-")));
    let launch: SandboxedCommand | undefined;
    try {
      const script = join(temp, "app", "node_modules", "tool", "main.js");
      await mkdir(dirname(script), { recursive: true });
      await writeFile(script, 'console.log("tool ran");\n');
      launch = await createSandboxedCommand({ command: process.execPath, args: [script], root: fixture.root, label: "tool" });
      const result = await run(launch);
      expect(result.stdout.trim(), result.stderr).toBe("tool ran");
    } finally {
      await launch?.dispose();
      await rm(temp, { recursive: true, force: true });
      await fixture.cleanup();
    }
  });
});
