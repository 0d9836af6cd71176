import { randomBytes } from "node:crypto";
import { mkdir, readdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { instantiateRedirectCase, redirectCorpus } from "@cairn/core/testing";
import { createToolsFixture, type ToolsFixture } from "./tools-support.ts";

/**
 * A corpus of hostile inputs through every file tool and Bash, against the real sandboxed worker.
 * Beside the workspace sits a canary file; its content must never appear in any result, progress
 * or structured output, and nothing may be created or changed outside the workspace.
 */
const canary = `CANARY-${randomBytes(12).toString("hex")}`;
let fixture: ToolsFixture;
let parent: string;
let root: string;

/** The canary and secret beside the workspace, and links inside it that point at them. */
async function plantCanary(target: ToolsFixture): Promise<void> {
  await writeFile(join(target.parent, "canary.txt"), `${canary}\n`);
  await mkdir(join(target.parent, "secret"));
  await writeFile(join(target.parent, "secret", "key.txt"), `${canary}-key\n`);
  await symlink("../canary.txt", join(target.root, "link-file"));
  await symlink(join(target.parent, "canary.txt"), join(target.root, "link-abs"));
  await symlink("..", join(target.root, "link-dir"));
  await symlink("chain-b", join(target.root, "chain-a"));
  await symlink("../canary.txt", join(target.root, "chain-b"));
  await symlink("../created-by-escape.txt", join(target.root, "dangling"));
  await symlink("../new-dir", join(target.root, "dangling-dir"));
  await symlink("/proc/self/root", join(target.root, "proc-root"));
}

beforeAll(async () => {
  fixture = await createToolsFixture({ "inside.txt": "harmless\n", "src/a.ts": "export const a = 1;\n" });
  ({ parent, root } = fixture);
  await plantCanary(fixture);
});

afterAll(async () => {
  await fixture.dispose();
});

type Case = { tool: string; input: Record<string, unknown>; mustFail: boolean };

const fileCases = (): Case[] => {
  const viaParent = join(parent, "canary.txt");
  const paths = [
    `${root}/../canary.txt`,
    viaParent,
    `${root}/link-file`,
    `${root}/link-abs`,
    `${root}/link-dir/canary.txt`,
    `${root}/link-dir/secret/key.txt`,
    `${root}/chain-a`,
    `${root}/./../canary.txt`,
    `${root}//..//canary.txt`,
    `/proc/self/root${viaParent}`,
    `${root}/proc-root${viaParent}`,
    `/proc/self/cwd/../canary.txt`,
    `${root}/inside.txt\0/../../canary.txt`,
  ];
  return [
    ...paths.map((file_path) => ({ tool: "Read", input: { file_path }, mustFail: true })),
    { tool: "Read", input: { file_path: "../canary.txt" }, mustFail: true },
    { tool: "Read", input: { file_path: "~/../canary.txt" }, mustFail: true },
    { tool: "Read", input: { file_path: `${root}/link-dir/ws/link-file` }, mustFail: true },
    { tool: "Write", input: { file_path: viaParent, content: "overwritten" }, mustFail: true },
    { tool: "Write", input: { file_path: `${root}/link-file`, content: "overwritten" }, mustFail: true },
    { tool: "Write", input: { file_path: `${root}/link-dir/created-by-escape.txt`, content: "x" }, mustFail: true },
    { tool: "Write", input: { file_path: `${root}/dangling`, content: "x" }, mustFail: true },
    { tool: "Write", input: { file_path: `${root}/dangling-dir/file.txt`, content: "x" }, mustFail: true },
    { tool: "Write", input: { file_path: `${root}/../created-by-escape.txt`, content: "x" }, mustFail: true },
    { tool: "Edit", input: { file_path: viaParent, old_string: "x", new_string: "y" }, mustFail: true },
    { tool: "Edit", input: { file_path: `${root}/link-file`, old_string: "", new_string: "y" }, mustFail: true },
    { tool: "Edit", input: { file_path: `${root}/chain-a`, old_string: "CANARY", new_string: "y", replace_all: true }, mustFail: true },
    { tool: "Edit", input: { file_path: `${root}/dangling`, old_string: "", new_string: "created" }, mustFail: true },
    { tool: "Glob", input: { pattern: "../*" }, mustFail: true },
    { tool: "Glob", input: { pattern: `${parent}/*` }, mustFail: true },
    { tool: "Glob", input: { pattern: "*", path: parent }, mustFail: true },
    { tool: "Glob", input: { pattern: "*", path: `${root}/link-dir` }, mustFail: true },
    { tool: "Glob", input: { pattern: "**/../../canary.txt" }, mustFail: true },
    { tool: "Glob", input: { pattern: "**/*" }, mustFail: false },
    { tool: "Grep", input: { pattern: "CANARY", path: parent }, mustFail: true },
    { tool: "Grep", input: { pattern: ".", path: `${root}/link-file`, output_mode: "content" }, mustFail: true },
    { tool: "Grep", input: { pattern: ".", path: `${root}/link-dir`, output_mode: "content" }, mustFail: true },
    { tool: "Grep", input: { pattern: "CANARY", path: "/proc/self/root/tmp" }, mustFail: true },
    { tool: "Grep", input: { pattern: ".", glob: "../*", output_mode: "content" }, mustFail: false },
    { tool: "Grep", input: { pattern: "CANARY", output_mode: "content", "-C": 5 }, mustFail: false },
    { tool: "Grep", input: { pattern: ".", output_mode: "content", multiline: true }, mustFail: false },
  ];
};

/** Shell commands that read the canary; without the sandbox each one shows it (the positive control). */
const bashReadProbes = (): string[] => [
  "cat ../canary.txt",
  `cat ${join(parent, "canary.txt")}`,
  "cat link-file",
  "cat link-abs chain-a",
  "cat link-dir/canary.txt link-dir/secret/key.txt",
  "cd .. && cat canary.txt; ls",
  `cat /proc/self/root${join(parent, "canary.txt")}`,
  "ln -s ../canary.txt fresh-link && cat fresh-link",
  `grep -r CANARY ${parent} 2>&1; grep -r CANARY .. 2>&1`,
  `find ${parent} -type f -exec cat {} + 2>&1`,
  "python3 -c \"print(open('../canary.txt').read())\" 2>&1",
  "node -e \"console.log(require('fs').readFileSync('../canary.txt','utf8'))\" 2>&1",
  "cp ../canary.txt stolen.txt; cat stolen.txt",
  `tar -cf - -C ${parent} canary.txt 2>&1 | tar -xOf - 2>&1`,
];

// Every redirection form of the permission corpus, aimed beside the workspace, in one script (a
// subshell each): the sandbox refuses the writes even though no permission check runs here.
const redirectScript = (): string =>
  redirectCorpus.map((entry, index) => `(\n${instantiateRedirectCase(entry, `../redirected-${index}`).command}\n) 2>/dev/null`).join("\n");

const bashCases = (): Case[] =>
  [...bashReadProbes(), "echo pwned > ../created-by-escape.txt; mkdir ../new-dir", "echo pwned > dangling", redirectScript()].map((command) => ({
    tool: "Bash",
    input: { command },
    mustFail: false,
  }));

describe("path-escape corpus through the tools", () => {
  it("has at least 30 hostile inputs", () => {
    expect(fileCases().length + bashCases().length).toBeGreaterThanOrEqual(30);
  });

  it("never shows the canary, and every file-tool escape is refused", async () => {
    const leaks: string[] = [];
    const notRefused: string[] = [];
    for (const testCase of fileCases()) {
      const run = await fixture.run(testCase.tool, testCase.input, fixture.context());
      const seen = JSON.stringify(run);
      const label = `${testCase.tool} ${JSON.stringify(testCase.input)}`;
      if (seen.includes(canary)) leaks.push(label);
      if (testCase.mustFail && !run.isError) notRefused.push(`${label} → ${run.text.slice(0, 200)}`);
      if (!run.isError && seen.includes(`${parent}/canary.txt`)) leaks.push(`${label} (listed a path outside the workspace)`);
    }
    expect(leaks).toEqual([]);
    expect(notRefused).toEqual([]);
  });

  it("never shows the canary through Bash, also in a background job", async () => {
    const leaks: string[] = [];
    for (const testCase of bashCases()) {
      const run = await fixture.run("Bash", testCase.input, fixture.context());
      if (JSON.stringify(run).includes(canary)) leaks.push(String(testCase.input.command));
    }
    const session = fixture.context();
    const started = await fixture.run("Bash", { command: "cat ../canary.txt link-file; echo done", run_in_background: true }, session);
    const id = /ID: (\S+)$/.exec(started.text)?.[1] ?? "";
    let output = "";
    await vi.waitFor(
      async () => {
        output += JSON.stringify(await fixture.run("BashOutput", { bash_id: id }, session));
        expect(output).toContain("<status>completed</status>");
      },
      { timeout: 10_000, interval: 100 },
    );
    expect(output).toContain("done");
    if (output.includes(canary)) leaks.push("background job");
    expect(leaks).toEqual([]);
  });

  it("positive control: without the sandbox, every Bash read probe shows the canary", async () => {
    const unsandboxed = await createToolsFixture({ "inside.txt": "harmless\n" }, { sandbox: false });
    try {
      await plantCanary(unsandboxed);
      const missed: string[] = [];
      for (const command of bashReadProbes()) {
        const probe = command.replaceAll(parent, unsandboxed.parent);
        const run = await unsandboxed.run("Bash", { command: probe }, unsandboxed.context());
        if (!run.text.includes(canary)) missed.push(`${probe} → ${run.text.slice(0, 200)}`);
      }
      expect(missed).toEqual([]);
    } finally {
      await unsandboxed.dispose();
    }
  });

  it("positive control: without the sandbox, the redirection script writes every file beside the workspace", async () => {
    const unsandboxed = await createToolsFixture({}, { sandbox: false });
    try {
      await unsandboxed.run("Bash", { command: redirectScript() }, unsandboxed.context());
      const written = await readdir(unsandboxed.parent);
      const expected = redirectCorpus.map((entry, index) => instantiateRedirectCase(entry, `redirected-${index}`).file);
      expect(expected.filter((name) => !written.includes(name))).toEqual([]);
    } finally {
      await unsandboxed.dispose();
    }
  });

  it("left nothing changed or created outside the workspace", async () => {
    expect(await readFile(join(parent, "canary.txt"), "utf8")).toBe(`${canary}\n`);
    expect(await readFile(join(parent, "secret", "key.txt"), "utf8")).toBe(`${canary}-key\n`);
    expect((await readdir(parent)).sort()).toEqual(["canary.txt", "secret", "ws"]);
  });
});
