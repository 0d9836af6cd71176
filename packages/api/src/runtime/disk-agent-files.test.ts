import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadAgentDefinitions } from "@cairn/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { diskAgentFiles } from "./disk-agent-files.ts";

let parent: string;
let root: string;

beforeEach(async () => {
  parent = await realpath(await mkdtemp(join(tmpdir(), "cairn-agent-files-")));
  root = join(parent, "ws");
  await mkdir(join(root, ".claude", "agents"), { recursive: true });
  await writeFile(join(parent, "secret.md"), "---\nname: leaked\ndescription: from outside\n---\nouter prompt\n");
});

afterEach(async () => {
  await rm(parent, { recursive: true, force: true });
});

describe("agent files read from the disk a local worker shares", () => {
  it("loads .claude/agents/*.md as the worker would, and never a file outside the workspace", async () => {
    await writeFile(join(root, ".claude", "agents", "reviewer.md"), "---\nname: reviewer\ndescription: Reviews code.\n---\nReview it.\n");
    await symlink(join(parent, "secret.md"), join(root, ".claude", "agents", "linked.md"));
    const files = diskAgentFiles(root);
    const { definitions, problems } = await loadAgentDefinitions(files);
    expect(definitions.map((definition) => definition.agentType)).toEqual(["general-purpose", "reviewer"]);
    expect(problems).toEqual([]);
    // A link out of the workspace is listed as a link, and reading through it is refused.
    expect((await files.list(join(root, ".claude", "agents"))).map((entry) => [entry.name, entry.kind]).sort()).toEqual([
      ["linked.md", "symlink"],
      ["reviewer.md", "file"],
    ]);
    await expect(files.readFile(join(root, ".claude", "agents", "linked.md"))).rejects.toMatchObject({ code: "outside_workspace" });
    await expect(files.readFile("../secret.md")).rejects.toMatchObject({ code: "outside_workspace" });
    expect(await files.stat(join(root, ".claude", "agents", "linked.md"))).toBeNull();
  });

  it("answers a missing directory with no stat and no project agents", async () => {
    await rm(join(root, ".claude"), { recursive: true });
    const files = diskAgentFiles(root);
    expect(await files.stat(join(root, ".claude", "agents"))).toBeNull();
    expect((await loadAgentDefinitions(files)).definitions.map((definition) => definition.agentType)).toEqual(["general-purpose"]);
    await expect(files.readFile(join(root, "absent.md"))).rejects.toMatchObject({ code: "not_found" });
  });
});
