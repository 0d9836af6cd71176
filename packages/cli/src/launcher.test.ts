import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";
import { afterEach, describe, expect, it } from "vitest";

// bin/cairn.js in a folder of its own, beside a stand-in bundle and stand-in sources that say which one ran.
const cliDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const repoNodeModules = join(cliDir, "..", "..", "node_modules");
const { BUNDLE_HEAD, BUNDLE_TAIL } = createRequire(import.meta.url)("../bin/load-bundle.js") as { BUNDLE_HEAD: string; BUNDLE_TAIL: string };
/** A bundle's code as build.mjs writes it: esbuild's CommonJS output (a comment line, then the code) inside the module wrapper. */
const asBundle = (code: string) => `${BUNDLE_HEAD}${code}${BUNDLE_TAIL}`;
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
  copyFileSync(join(cliDir, "bin", "load-bundle.js"), join(root, "bin", "load-bundle.js"));
  copyFileSync(join(cliDir, "bin", "package.json"), join(root, "bin", "package.json"));
  // tsx (for CAIRN_DEV=1) is found through node_modules, as in the checkout.
  symlinkSync(repoNodeModules, join(root, "node_modules"));
  writeFileSync(join(root, "package.json"), '{ "type": "module" }\n');
  const main = (from: string) => `export async function main(args) { console.log("${from}", args.join(" ")); return 3; }\n`;
  if (files.bundle) {
    mkdirSync(join(root, "dist"));
    writeBundle("bundle");
    // The sources are newer than the bundle: that must not change what runs.
    const past = new Date(Date.now() - 60_000);
    utimesSync(join(root, "dist", "cairn.cjs"), past, past);
  }
  writeFileSync(join(root, "src", "main.ts"), main("sources").replace("(args)", "(args: string[])"));
  return join(root, "bin", "cairn.js");
}

/** A stand-in bundle, shaped as build.mjs writes one; `main` says who it is. */
function writeBundle(from: string): void {
  const code = `// stand-in bundle\n"use strict";\nexports.main = async function main(args) {\n  console.log(${JSON.stringify(from)}, args.join(" "));\n  return 3;\n};\n`;
  writeFileSync(join(root!, "dist", "cairn.cjs"), asBundle(code));
}

const caches = () => readdirSync(join(root!, "dist")).filter((name) => name.endsWith(".v8-cache"));

function run(bin: string, env: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, [bin, "-p", "--flag"], { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env }, encoding: "utf8" });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe("bin/cairn.js", () => {
  it("runs the bundle, even when the sources are newer than it", () => {
    expect(run(launcherCopy({ bundle: true }))).toEqual({ code: 3, stdout: "bundle -p --flag\n", stderr: "" });
  });

  it("runs the TypeScript sources only with CAIRN_DEV=1", () => {
    expect(run(launcherCopy({ bundle: true }), { CAIRN_DEV: "1" })).toEqual({ code: 3, stdout: "sources -p --flag\n", stderr: "" });
  });

  it("a -p start loads node:http, never undici, before the bundle (then keeps WebAssembly on V8's baseline compiler); other starts do not", () => {
    const bin = launcherCopy({ bundle: true });
    writeFileSync(
      join(root!, "dist", "cairn.cjs"),
      asBundle(
        `// stand-in bundle\n"use strict";\nexports.main = async function main(args) {\n  const loaded = process.moduleLoadList;\n  console.log(args.join(" "), loaded.includes("NativeModule http"), loaded.includes("NativeModule internal/deps/undici/undici"));\n  return 0;\n};\n`,
      ),
    );
    expect(run(bin)).toEqual({ code: 0, stdout: "-p --flag true false\n", stderr: "" });
    const version = spawnSync(process.execPath, [bin, "--version"], { env: { PATH: process.env.PATH ?? "/usr/bin:/bin" }, encoding: "utf8" });
    expect(version.stdout).toBe("--version false false\n");
    expect(
      caches()
        .map((name) => name.split(".")[2]!.split("-")[0])
        .sort(),
    ).toEqual(["other", "print"]);
  });

  it("refuses a bundle not built inside the module wrapper (an older build.mjs's) and says to rebuild it, running nothing", () => {
    const bin = launcherCopy({ bundle: true });
    writeFileSync(
      join(root!, "dist", "cairn.cjs"),
      `// stand-in bundle\n"use strict";\nexports.main = async function main() {\n  console.log("ran");\n  return 0;\n};\n`,
    );
    const result = run(bin);
    expect(result.code).not.toBe(0);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("rebuild it with `npm run build -w @cairn/cli`");
    expect(caches()).toEqual([]);
  });

  it("reads an ASCII bundle as Latin-1 and one with a byte past ASCII (not from build.mjs) as UTF-8: the text is the bundle's either way", () => {
    const bin = launcherCopy({ bundle: true });
    expect(run(bin).stdout).toBe("bundle -p --flag\n");
    writeBundle("bündle ✓");
    expect(run(bin).stdout).toBe("bündle ✓ -p --flag\n");
  });

  it("without a bundle says how to build it (or to set CAIRN_DEV=1) and exits 1, running nothing", () => {
    const bin = launcherCopy({ bundle: false });
    const result = run(bin);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain(`the built CLI (${join(root ?? "", "dist", "cairn.cjs")}) is missing`);
    expect(result.stderr).toContain("npm run build -w @cairn/cli");
    expect(result.stderr).toContain("CAIRN_DEV=1");
  });

  it("leaves a V8 code cache for the next start, per command, and runs the same with it", () => {
    const bin = launcherCopy({ bundle: true });
    expect(caches()).toEqual([]);
    expect(run(bin)).toEqual({ code: 3, stdout: "bundle -p --flag\n", stderr: "" });
    expect(caches()).toHaveLength(1);
    expect(caches()[0]).toMatch(/^cairn\.cjs\.print-\d+-\d+\.v8-cache$/);
    const cache = readFileSync(join(root!, "dist", caches()[0]!));
    expect(run(bin)).toEqual({ code: 3, stdout: "bundle -p --flag\n", stderr: "" });
    // A start that used the cache does not write it again.
    expect(readFileSync(join(root!, "dist", caches()[0]!)).equals(cache)).toBe(true);
    const serve = spawnSync(process.execPath, [bin, "serve", "--x"], { env: { PATH: process.env.PATH ?? "/usr/bin:/bin" }, encoding: "utf8" });
    expect(serve.stdout).toBe("bundle serve --x\n");
    expect(caches().filter((name) => name.startsWith("cairn.cjs.serve-"))).toHaveLength(1);
    // Node flags change what V8 accepts: a start with flags keeps its own cache and leaves the others alone.
    const flagged = spawnSync(process.execPath, ["--min-semi-space-size=16", bin, "-p", "--flag"], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      encoding: "utf8",
    });
    expect(flagged.stdout).toBe("bundle -p --flag\n");
    expect(caches().filter((name) => /^cairn\.cjs\.print-[0-9a-f]{8}-\d+-\d+\.v8-cache$/.test(name))).toHaveLength(1);
    expect(readFileSync(join(root!, "dist", caches().find((name) => /^cairn\.cjs\.print-\d+-\d+\.v8-cache$/.test(name))!)).equals(cache)).toBe(true);
  });

  it("a damaged cache is ignored and replaced; a rebuilt bundle of the same length never runs the old one's code", () => {
    const bin = launcherCopy({ bundle: true });
    run(bin);
    const [cache] = caches();
    writeFileSync(join(root!, "dist", cache!), "not a code cache");
    expect(run(bin)).toEqual({ code: 3, stdout: "bundle -p --flag\n", stderr: "" });
    expect(readFileSync(join(root!, "dist", cache!), "utf8")).not.toBe("not a code cache");
    // Same length, other code: V8 itself would only compare lengths.
    writeBundle("BUNDLE");
    expect(run(bin)).toEqual({ code: 3, stdout: "BUNDLE -p --flag\n", stderr: "" });
  });

  it("a cache it cannot write costs nothing: the command runs and no temporary file is left", () => {
    const bin = launcherCopy({ bundle: true });
    const { size, mtimeMs } = statSync(join(root!, "dist", "cairn.cjs"));
    // A directory where the cache would go: reading it fails, and so does renaming the new cache onto it.
    mkdirSync(join(root!, "dist", `cairn.cjs.print-${size}-${Math.trunc(mtimeMs)}.v8-cache`));
    expect(run(bin)).toEqual({ code: 3, stdout: "bundle -p --flag\n", stderr: "" });
    expect(readdirSync(join(root!, "dist")).filter((name) => name.endsWith(".tmp"))).toEqual([]);
  });
});
