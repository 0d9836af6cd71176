import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ensureSampleWorkspace } from "./sample-workspace.ts";

let cairnHome: string | undefined;
afterEach(() => {
  if (cairnHome) rmSync(cairnHome, { recursive: true, force: true });
  cairnHome = undefined;
});

async function createSample(): Promise<string> {
  cairnHome = mkdtempSync(join(tmpdir(), "cairn-sample-"));
  return ensureSampleWorkspace(cairnHome);
}

/** `npm test` in the sample as a new user runs it: nothing installed, no network needed. */
function npmTest(root: string) {
  const result = spawnSync("npm", ["test"], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: cairnHome ?? root, npm_config_update_notifier: "false", npm_config_offline: "true" },
    encoding: "utf8",
    timeout: 60_000,
  });
  return { code: result.status, output: `${result.stdout}${result.stderr}` };
}

describe("the sample workspace", { timeout: 90_000 }, () => {
  it("passes its own npm test as created, with no install (Node's test runner on plain JavaScript)", async () => {
    const root = await createSample();
    const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as Record<string, unknown>;
    expect(manifest).toEqual({ name: "cairn-sample", private: true, type: "module", scripts: { test: "node --test" } });
    const run = npmTest(root);
    expect(run.output).toMatch(/^# pass 1$/m);
    expect(run.output).toMatch(/^# fail 0$/m);
    expect(run.code).toBe(0);
    expect(existsSync(join(root, "node_modules"))).toBe(false);
  });

  it("keeps a TODO for the agent that the suggested fix (the function and its test) completes, still passing", async () => {
    const root = await createSample();
    const source = readFileSync(join(root, "src", "math.js"), "utf8");
    expect(source).toContain("// TODO: implement factorial");
    expect(readFileSync(join(root, "README.md"), "utf8")).toContain("Implement the TODO in src/math.js and add a test for it");

    // What a model asked to "implement the TODO and add a test" would write.
    const implementation = [
      "export function factorial(n) {",
      '  if (!Number.isInteger(n) || n < 0) throw new RangeError("factorial needs a whole number >= 0");',
      "  let product = 1;",
      "  for (let k = 2; k <= n; k++) product *= k;",
      "  return product;",
      "}",
    ].join("\n");
    writeFileSync(join(root, "src", "math.js"), source.replace(/\/\/ TODO:[\s\S]*$/, `${implementation}\n`));
    writeFileSync(
      join(root, "test", "factorial.test.js"),
      'import assert from "node:assert/strict";\nimport { test } from "node:test";\nimport { factorial } from "../src/math.js";\n\n' +
        'test("factorial", () => {\n  assert.equal(factorial(0), 1);\n  assert.equal(factorial(5), 120);\n  assert.throws(() => factorial(-1), RangeError);\n});\n',
    );
    const run = npmTest(root);
    expect(run.output).toMatch(/^# pass 2$/m);
    expect(run.output).toMatch(/^# fail 0$/m);
    expect(run.code).toBe(0);
  });

  it("fails its npm test when a test fails, so the passing runs above prove something", async () => {
    const root = await createSample();
    writeFileSync(join(root, "src", "math.js"), "export function add(a, b) {\n  return a - b;\n}\n");
    const run = npmTest(root);
    expect(run.output).toMatch(/^# fail 1$/m);
    expect(run.code).not.toBe(0);
  });
});
