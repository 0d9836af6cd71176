import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createNodeShellParser } from "../node/shell-parser.ts";
import type { ShellParser } from "./shell/shell-parser.ts";
import { createHarness, tools } from "./test-fixtures.ts";

let parser: ShellParser;
beforeAll(async () => {
  parser = await createNodeShellParser();
});
afterAll(() => parser.dispose());

const layers = [{ source: "projectSettings" as const, settings: { permissions: { allow: ["Bash(git status:*)"] } } }];

describe("a shell parser that is still loading", () => {
  test("the first Bash decision waits for it, and then rules apply as with a loaded parser", async () => {
    let finishLoading: (loaded: ShellParser) => void = () => undefined;
    const loading = new Promise<ShellParser>((resolve) => (finishLoading = resolve));
    const harness = createHarness({ parser: loading, layers });
    let settled = false;
    const decision = harness.engine.check(harness.args(tools.Bash, { command: "git status --short" })).then((result) => {
      settled = true;
      return result;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(settled).toBe(false);
    finishLoading(parser);
    expect(await decision).toMatchObject({ behavior: "allow" });
  });

  test("a parser that fails to load counts as none: Bash asks, other tools are not held up", async () => {
    const harness = createHarness({ parser: Promise.reject(new Error("no wasm")), layers });
    expect(await harness.engine.check(harness.args(tools.Bash, { command: "git status --short" }))).toMatchObject({ behavior: "ask" });
    expect(await harness.engine.check(harness.args(tools.Read, { file_path: "/ws/a.ts" }))).toMatchObject({ behavior: "allow" });
  });

  test("a loader function is called by the first Bash decision only, never by other tools, and once", async () => {
    let loads = 0;
    const harness = createHarness({
      parser: () => {
        loads += 1;
        return Promise.resolve(parser);
      },
      layers,
    });
    expect(await harness.engine.check(harness.args(tools.Read, { file_path: "/ws/a.ts" }))).toMatchObject({ behavior: "allow" });
    expect(loads).toBe(0);
    expect(await harness.engine.check(harness.args(tools.Bash, { command: "git status --short" }))).toMatchObject({ behavior: "allow" });
    expect(await harness.engine.check(harness.args(tools.Bash, { command: "git status" }))).toMatchObject({ behavior: "allow" });
    expect(loads).toBe(1);
  });
});
