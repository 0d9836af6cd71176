import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createNodeShellParser } from "../node/shell-parser.ts";
import type { ShellParser } from "./shell/shell-parser.ts";
import { decisionReasonToOTelSource } from "./telemetry.ts";
import { createHarness, tools } from "./test-fixtures.ts";

let parser: ShellParser;
beforeAll(async () => {
  parser = await createNodeShellParser();
});
afterAll(() => parser.dispose());

describe("suggestions for asks", () => {
  test.each<[string, string[]]>([
    ["npm run test -- --watch", ["Bash(npm run test:*)"]],
    ["git push origin main", ["Bash(git push:*)"]],
    ["cargo test -p core", ["Bash(cargo test:*)"]],
    ["make", ["Bash(make:*)"]],
    ["python3 scripts/gen.py --out x", ["Bash(python3 scripts/gen.py:*)"]],
    ["NODE_ENV=test npx vitest run", ["Bash(npx vitest:*)"]],
    ["git status && npm install && touch x", ["Bash(npm install:*)", "Bash(touch:*)"]],
    ["ls $(rm x)", []],
    ["bash -c 'rm x'", []],
  ])("%j → %j", async (command, suggestions) => {
    const harness = createHarness({ parser });
    const result = await harness.engine.check(harness.args(tools.Bash, { command }));
    expect(result).toMatchObject({ behavior: "ask", suggestions });
  });

  test("path, web and MCP suggestions", async () => {
    const harness = createHarness({ parser });
    const suggest = (tool: (typeof tools)[keyof typeof tools], input: Record<string, unknown>) => harness.engine.suggest(harness.args(tool, input));
    expect(suggest(tools.Edit, { file_path: "/ws/src/app/main.ts" })).toEqual(["Edit(/src/app/**)"]);
    expect(suggest(tools.Write, { file_path: "/ws/README.md" })).toEqual(["Edit(/README.md)"]);
    expect(suggest(tools.Write, { file_path: "/ws/src/[id]/page.tsx" })).toEqual(["Edit(/src/\\\\[id\\\\]/**)"]);
    expect(suggest(tools.Read, { file_path: "/home/dev/.config/x.json" })).toEqual(["Read(~/.config/**)"]);
    expect(suggest(tools.WebFetch, { url: "https://Docs.Example.com/a" })).toEqual(["WebFetch(domain:docs.example.com)"]);
    expect(suggest(tools.memoryWrite, {})).toEqual(["mcp__memory__write", "mcp__memory"]);
  });

  test("a suggested path rule, once added, allows the call it was made for", async () => {
    const harness = createHarness({ parser });
    for (const path of ["/ws/src/[id]/page.tsx", "/ws/a (copy).ts", "/ws/lib/x.ts"]) {
      const args = harness.args(tools.Edit, { file_path: path });
      const [rule] = harness.engine.suggest(args);
      harness.store.setState((state) => ({ ...state, sessionAllowRules: [rule!] }));
      expect((await harness.engine.check(args)).behavior, `${rule} for ${path}`).toBe("allow");
    }
  });
});

describe("recordAnswer", () => {
  test("once adds nothing; session adds the first suggestion to the session; always also persists it", async () => {
    const harness = createHarness({ parser });
    const args = harness.args(tools.Bash, { command: "npm run test -- --watch" });
    const asked = await harness.engine.check(args);
    if (asked.behavior !== "ask") throw new Error("expected ask");
    const suggestions = asked.suggestions ?? [];

    await harness.engine.recordAnswer(args, { behavior: "allow", scope: "once" }, suggestions);
    expect(harness.store.getState().sessionAllowRules).toEqual([]);

    await harness.engine.recordAnswer(args, { behavior: "allow", scope: "session" }, suggestions);
    expect(harness.store.getState().sessionAllowRules).toEqual(["Bash(npm run test:*)"]);
    expect(harness.persisted).toEqual([]);
    expect((await harness.engine.check(harness.args(tools.Bash, { command: "npm run test" }))).behavior).toBe("allow");

    await harness.engine.recordAnswer(args, { behavior: "allow", scope: "always" }, suggestions);
    expect(harness.persisted).toEqual(["Bash(npm run test:*)"]);
    expect(harness.store.getState().sessionAllowRules).toEqual(["Bash(npm run test:*)"]);
  });

  test("a rejection records nothing", async () => {
    const harness = createHarness({ parser });
    const args = harness.args(tools.Bash, { command: "rm x" });
    await harness.engine.recordAnswer(args, { behavior: "deny" }, ["Bash(rm:*)"]);
    expect(harness.store.getState().sessionAllowRules).toEqual([]);
    expect(harness.persisted).toEqual([]);
  });
});

describe("OpenTelemetry", () => {
  test("decisionReasonToOTelSource follows the reference mapping", () => {
    expect(decisionReasonToOTelSource({ type: "rule", rule: "Bash", source: "session", behavior: "allow" }, "allow")).toBe("user_temporary");
    expect(decisionReasonToOTelSource({ type: "rule", rule: "Bash", source: "localSettings", behavior: "allow" }, "allow")).toBe("user_permanent");
    expect(decisionReasonToOTelSource({ type: "rule", rule: "Bash", source: "userSettings", behavior: "deny" }, "deny")).toBe("user_reject");
    expect(decisionReasonToOTelSource({ type: "hook", hookName: "x" }, "deny")).toBe("hook");
    expect(decisionReasonToOTelSource({ type: "mode", mode: "acceptEdits" }, "allow")).toBe("config");
    expect(decisionReasonToOTelSource({ type: "user", scope: "session" }, "allow")).toBe("user_temporary");
    expect(decisionReasonToOTelSource({ type: "user", scope: "always" }, "allow")).toBe("user_permanent");
    expect(decisionReasonToOTelSource({ type: "user", scope: "reject" }, "deny")).toBe("user_reject");
  });
});
