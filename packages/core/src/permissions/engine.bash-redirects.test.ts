import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createNodeShellParser } from "../node/shell-parser.ts";
import type { PermissionMode } from "../schema/permissions.ts";
import { instantiateRedirectCase, redirectCorpus } from "../testing/redirect-corpus.ts";
import type { ShellParser } from "./shell/shell-parser.ts";
import { isReadOnlyBashCommand } from "./shell/read-only.ts";
import { createHarness, tools, type HarnessOptions } from "./test-fixtures.ts";

let parser: ShellParser;
beforeAll(async () => {
  parser = await createNodeShellParser();
});
afterAll(() => parser.dispose());

// A prefix rule for every command the corpus uses: none of them may vouch for the file it writes.
const prefixRules = [
  "Bash(git status:*)",
  "Bash(ls:*)",
  "Bash(echo:*)",
  "Bash(printf:*)",
  "Bash(cat:*)",
  "Bash(tee:*)",
  "Bash(dd:*)",
  "Bash(true:*)",
  "Bash(f:*)",
  "Bash(wait:*)",
];

function harnessWith(
  mode: PermissionMode,
  allow: string[] = prefixRules,
  extra: Omit<HarnessOptions, "parser" | "mode" | "layers"> & { deny?: string[] } = {},
) {
  const harness = createHarness({
    parser,
    mode,
    layers: [{ source: "projectSettings", settings: { permissions: { allow, ...(extra.deny ? { deny: extra.deny } : {}) } } }],
  });
  return { ...harness, decide: (command: string) => harness.engine.check(harness.args(tools.Bash, { command })) };
}

const corpusRows = redirectCorpus.map((entry, index) => [index, entry.command] as const);

describe("the redirection corpus never gets past a prefix rule", () => {
  test.each(corpusRows)("#%i %j asks in default mode", async (index) => {
    const { command } = instantiateRedirectCase(redirectCorpus[index]!, `written-${index}`);
    const result = await harnessWith("default").decide(command);
    expect(result.behavior, JSON.stringify(result.reason)).toBe("ask");
  });

  test.each(corpusRows)("#%i %j is refused in plan mode", async (index) => {
    const { command } = instantiateRedirectCase(redirectCorpus[index]!, `written-${index}`);
    const result = await harnessWith("plan").decide(command);
    expect(result.behavior, JSON.stringify(result.reason)).toBe("deny");
  });

  test.each(corpusRows)("#%i %j with a target outside the workspace is not allowed by acceptEdits", async (index) => {
    const { command } = instantiateRedirectCase(redirectCorpus[index]!, `../outside-${index}`);
    const result = await harnessWith("acceptEdits").decide(command);
    expect(result.behavior, JSON.stringify(result.reason)).toBe("ask");
  });

  test.each(corpusRows)("#%i %j is not read-only", (index) => {
    const { command } = instantiateRedirectCase(redirectCorpus[index]!, `written-${index}`);
    expect(isReadOnlyBashCommand(parser, command)).toBe(false);
  });
});

describe("the decision names the files a command writes", () => {
  test.each([
    ["ls > marker", "marker (>)"],
    ["git status > marker", "marker (>)"],
    ["ls 2> marker", "marker (2>)"],
    ["ls >> marker", "marker (>>)"],
    ["ls; echo x > marker", "marker (>)"],
    ["ls &>> log.txt", "log.txt (&>>)"],
    ["ls | tee a.txt b.txt", "a.txt (tee), b.txt (tee)"],
    ['ls > "$OUT"', '"$OUT" (>, computed at run time)'],
  ])("%j → %s", async (command, named) => {
    const result = await harnessWith("default").decide(command);
    expect(result).toMatchObject({ behavior: "ask" });
    expect(JSON.stringify(result.reason)).toContain(named.replaceAll('"', '\\"'));
    expect(result.behavior === "ask" ? result.message : "").toContain(named);
  });

  test("a write outside the workspace is asked about as a workspace matter", async () => {
    const result = await harnessWith("default").decide("ls > /etc/motd");
    expect(result).toMatchObject({ behavior: "ask", reason: { type: "workspace", reason: "writes outside the workspace: /etc/motd (>)" } });
  });
});

describe("what is not a write", () => {
  test.each([
    "ls > /dev/null",
    "ls 2>/dev/null",
    "ls 2>&1",
    "ls >&2",
    "ls 2>&-",
    "ls < input.txt",
    "ls > /dev/stderr",
    "git status 2>&1 | head -3",
    "cat <<EOF\nx\nEOF",
    "cat <<< x",
  ])("%j stays allowed by the prefix rule or as read-only", async (command) => {
    const result = await harnessWith("default").decide(command);
    expect(result.behavior, JSON.stringify(result.reason)).toBe("allow");
  });
});

describe("what allows a write", () => {
  test("acceptEdits allows a redirection into the workspace like an Edit, naming the file", async () => {
    const result = await harnessWith("acceptEdits", []).decide("ls -la > listing.txt");
    expect(result).toMatchObject({
      behavior: "allow",
      reason: { type: "mode", mode: "acceptEdits", reason: "acceptEdits allows writing listing.txt (>) inside the workspace" },
    });
  });

  test("acceptEdits still asks about protected paths, computed targets, a cd, and commands no rule covers", async () => {
    const harness = harnessWith("acceptEdits", ["Bash(ls:*)"]);
    expect(await harness.decide("ls > .git/hooks/pre-commit")).toMatchObject({ behavior: "ask", reason: { type: "workspace" } });
    expect(await harness.decide("ls > .claude/settings.local.json")).toMatchObject({ behavior: "ask", reason: { type: "workspace" } });
    expect((await harness.decide("ls > $TARGET")).behavior).toBe("ask");
    expect((await harness.decide("cd sub && ls > out.txt")).behavior).toBe("ask");
    expect((await harness.decide("npm test > out.txt")).behavior).toBe("ask");
    expect((await harness.decide("ls > /dev/sda")).behavior).toBe("ask");
  });

  test("an Edit allow rule covers the file, and the Bash rule the command", async () => {
    const harness = harnessWith("default", ["Bash(npm test:*)", "Edit(/logs/**)"]);
    expect(await harness.decide("npm test > logs/test.txt 2>&1")).toMatchObject({ behavior: "allow", reason: { type: "rule", rule: "Edit(/logs/**)" } });
    expect((await harness.decide("npm test > other.txt")).behavior).toBe("ask");
    expect((await harness.decide("npm run build > logs/build.txt")).behavior).toBe("ask");
  });

  test("an Edit deny rule denies the write, in every mode", async () => {
    for (const mode of ["default", "acceptEdits", "bypassPermissions"] as const) {
      const harness = harnessWith(mode, ["Bash(ls:*)"], { deny: ["Edit(/secrets/**)"] });
      expect(await harness.decide("ls | tee secrets/key"), mode).toMatchObject({ behavior: "deny", reason: { type: "rule", rule: "Edit(/secrets/**)" } });
    }
  });

  test("a deny rule sees the arguments written after a redirection target", async () => {
    const harness = harnessWith("bypassPermissions", [], { deny: ["Bash(git push:*)"] });
    expect(await harness.decide("git > /dev/null push --force")).toMatchObject({ behavior: "deny", reason: { type: "rule", rule: "Bash(git push:*)" } });
  });

  test("bypassPermissions denies a write outside the workspace and allows one inside", async () => {
    const harness = harnessWith("bypassPermissions", []);
    expect(await harness.decide("ls > /etc/motd")).toMatchObject({ behavior: "deny", reason: { type: "workspace" } });
    expect((await harness.decide("ls > inside.txt")).behavior).toBe("allow");
  });

  test("a whole-tool Bash rule still allows everything", async () => {
    expect((await harnessWith("default", ["Bash"]).decide("ls > marker")).behavior).toBe("allow");
  });

  test("the suggestion is an Edit rule for the file, and allowing it for the session covers the next run", async () => {
    const harness = harnessWith("default", ["Bash(ls:*)"]);
    const args = harness.args(tools.Bash, { command: "ls > marker" });
    const first = await harness.engine.check(args);
    expect(first).toMatchObject({ behavior: "ask", suggestions: ["Edit(/marker)"] });
    await harness.engine.recordAnswer(args, { behavior: "allow", scope: "session" }, first.behavior === "ask" ? (first.suggestions ?? []) : []);
    expect(await harness.engine.check(args)).toMatchObject({ behavior: "allow", reason: { type: "rule", rule: "Edit(/marker)", source: "session" } });
  });

  test("a command no rule covers that also writes suggests both rules", async () => {
    const result = await harnessWith("default", []).decide("npm test > logs/out.txt");
    expect(result).toMatchObject({ behavior: "ask", suggestions: ["Bash(npm test:*)", "Edit(/logs/**)"] });
  });
});
