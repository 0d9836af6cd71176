import { mkdir, open, readdir, readFile, rename, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeFixture, type Fixture } from "../testing/fixture.ts";
import { PathConfiner } from "./confine.ts";
import { FileOps } from "./file-ops.ts";
import { assertHandleInside, pinDirectory } from "./pinned.ts";

let fixture: Fixture;
let confiner: PathConfiner;

beforeEach(async () => {
  fixture = await makeFixture();
  confiner = await PathConfiner.create(fixture.root);
});

afterEach(async () => {
  await fixture.cleanup();
});

describe("a directory swapped for a link after it was checked", () => {
  it("cannot redirect what goes through the held directory", async () => {
    const sub = join(fixture.root, "sub");
    await mkdir(sub);
    const pinned = await pinDirectory(confiner, sub, "sub");
    try {
      await rename(sub, join(fixture.root, "sub-moved"));
      await symlink(fixture.outside, sub);
      await writeFile(`${pinned.path}/written.txt`, "inside");
    } finally {
      await pinned.close();
    }
    expect(await readFile(join(fixture.root, "sub-moved", "written.txt"), "utf8")).toBe("inside");
    expect(await readdir(fixture.outside)).toEqual(["secret.txt"]);
  });

  it("refuses a handle that turns out to be outside", async () => {
    const handle = await open(fixture.canaryPath, "r");
    try {
      await expect(assertHandleInside(confiner, handle, "x")).rejects.toMatchObject({ code: "outside_workspace" });
    } finally {
      await handle.close();
    }
  });

  it("never lets racing swaps make file operations write, delete or read outside", async () => {
    const files = new FileOps(confiner);
    const sub = join(fixture.root, "sub");
    await mkdir(sub);
    await writeFile(join(fixture.outside, "victim.txt"), "keep");
    let racing = true;
    // What a sandboxed command could do: keep swapping `sub` between a directory and a link leading out.
    const swapper = (async () => {
      while (racing) {
        await rm(sub, { recursive: true, force: true }).catch(() => undefined);
        await symlink(fixture.outside, sub).catch(() => undefined);
        await rm(sub, { force: true }).catch(() => undefined);
        await mkdir(sub).catch(() => undefined);
        await writeFile(join(sub, "victim.txt"), "inside").catch(() => undefined);
      }
    })();
    const seen: string[] = [];
    for (let round = 0; round < 300; round += 1) {
      await files.writeFile(`sub/new-${round}.txt`, "written").catch(() => undefined);
      await files.remove("sub/victim.txt").catch(() => undefined);
      await files.readFile("sub/secret.txt").then(
        (data) => seen.push(Buffer.from(data).toString()),
        () => undefined,
      );
    }
    racing = false;
    await swapper;
    expect((await readdir(fixture.outside)).sort()).toEqual(["secret.txt", "victim.txt"]);
    expect(await readFile(join(fixture.outside, "victim.txt"), "utf8")).toBe("keep");
    expect(seen.join("")).not.toContain(fixture.canary);
  });
});
