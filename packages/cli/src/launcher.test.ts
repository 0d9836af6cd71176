import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

// bin/cairn.js in a folder of its own, beside a stand-in bundle and stand-in sources that say which one ran.
const cliDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const repoNodeModules = join(cliDir, "..", "..", "node_modules");
let root: string | undefined;
afterEach(() => {
  if (root) rmSync(root, { recursive: true, force: true });
  root = undefined;
});

function launcherCopy(files: { bundle: boolean }): string {
  root = mkdtempSync(join(tmpdir(), "cairn-launcher-"));
  mkdirSync(join(root, "bin"));
  mkdirSync(join(root, "src"));
  copyFileSync(join(cliDir, "bin", "cairn.js"), join(root, "bin", "cairn.js"));
  // tsx (for CAIRN_DEV=1) is found through node_modules, as in the checkout.
  symlinkSync(repoNodeModules, join(root, "node_modules"));
  writeFileSync(join(root, "package.json"), '{ "type": "module" }\n');
  const main = (from: string) => `export async function main(args) { console.log("${from}", args.join(" ")); return 3; }\n`;
  if (files.bundle) {
    mkdirSync(join(root, "dist"));
    writeFileSync(join(root, "dist", "cairn.mjs"), main("bundle"));
    // The sources are newer than the bundle: that must not change what runs.
    const past = new Date(Date.now() - 60_000);
    utimesSync(join(root, "dist", "cairn.mjs"), past, past);
  }
  writeFileSync(join(root, "src", "main.ts"), main("sources").replace("(args)", "(args: string[])"));
  return join(root, "bin", "cairn.js");
}

function run(bin: string, env: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, [bin, "--flag"], { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env }, encoding: "utf8" });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe("bin/cairn.js", () => {
  it("runs the bundle, even when the sources are newer than it", () => {
    expect(run(launcherCopy({ bundle: true }))).toEqual({ code: 3, stdout: "bundle --flag\n", stderr: "" });
  });

  it("runs the TypeScript sources only with CAIRN_DEV=1", () => {
    expect(run(launcherCopy({ bundle: true }), { CAIRN_DEV: "1" })).toEqual({ code: 3, stdout: "sources --flag\n", stderr: "" });
  });

  it("without a bundle says how to build it (or to set CAIRN_DEV=1) and exits 1, running nothing", () => {
    const bin = launcherCopy({ bundle: false });
    const result = run(bin);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain(`the built CLI (${join(root ?? "", "dist", "cairn.mjs")}) is missing`);
    expect(result.stderr).toContain("npm run build -w @cairn/cli");
    expect(result.stderr).toContain("CAIRN_DEV=1");
  });
});
