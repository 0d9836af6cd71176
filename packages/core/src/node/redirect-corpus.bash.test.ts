import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { instantiateRedirectCase, redirectCorpus } from "../testing/redirect-corpus.ts";

// The positive control for the redirection corpus: under plain bash, every entry really writes its
// file, so a permission test that refuses them all is refusing real writes.
let base: string;
beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), "cairn-redirect-bash-"));
});
afterAll(async () => rm(base, { recursive: true, force: true }));

async function runInFreshWorkspace(command: string, index: number): Promise<string> {
  const parent = join(base, `case-${index}`);
  const workspace = join(parent, "ws");
  await mkdir(workspace, { recursive: true });
  const result = spawnSync("bash", ["-c", command], { cwd: workspace, env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: workspace }, timeout: 10_000 });
  expect(result.error).toBeUndefined();
  return workspace;
}

describe("every redirection in the corpus writes its file under plain bash", () => {
  test(`the corpus has at least 40 forms (${redirectCorpus.length})`, () => {
    expect(redirectCorpus.length).toBeGreaterThanOrEqual(40);
  });

  test.each(redirectCorpus.map((entry, index) => [index, entry.command] as const))("#%i %j writes inside the workspace", async (index) => {
    const entry = instantiateRedirectCase(redirectCorpus[index]!, `written-${index}`);
    const workspace = await runInFreshWorkspace(entry.command, index);
    expect(existsSync(join(workspace, entry.file))).toBe(true);
  });

  test.each(redirectCorpus.map((entry, index) => [index, entry.command] as const))("#%i %j writes outside it with a ../ target", async (index) => {
    const entry = instantiateRedirectCase(redirectCorpus[index]!, `../outside-${index}`);
    const workspace = await runInFreshWorkspace(entry.command, 1000 + index);
    expect(existsSync(join(workspace, entry.file))).toBe(true);
  });
});
