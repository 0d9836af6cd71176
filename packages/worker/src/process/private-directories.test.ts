import { mkdir, mkdtemp, readdir, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makePrivateDirectory, removeStalePrivateDirectories } from "./private-directories.ts";
import { processStartTime } from "./process-start.ts";

describe("private directories", () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), "cairn-private-dirs-test-"));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it("are named after this host and this process (pid and start time)", async () => {
    const made = basename(await makePrivateDirectory(root, "cairn-ws"));
    expect(made).toMatch(new RegExp(`^cairn-ws-[0-9a-f]{8}-${process.pid}\\.${processStartTime(process.pid)}-[A-Za-z0-9]{6}$`));
  });

  it("removes only this user's directories of this host whose process no longer runs", async () => {
    const own = basename(await makePrivateDirectory(root, "cairn-ws"));
    const host = own.split("-")[2];
    const parentStart = processStartTime(process.ppid);
    expect(parentStart).toBeDefined();
    const names = {
      // pid_max is at most 2^22: no process has this pid.
      deadPid: `cairn-ws-${host}-4194304.100-aaaaaa`,
      // This process's pid, another start time: an earlier process that had the pid.
      reusedPid: `cairn-ws-${host}-${process.pid}.1-bbbbbb`,
      liveParent: `cairn-ws-${host}-${process.ppid}.${parentStart}-cccccc`,
      otherHost: "cairn-ws-0badc0de-4194304.100-dddddd",
      olderVersion: "cairn-ws-eeeeee",
      otherKind: `cairn-worker-${host}-4194304.100-ffffff`,
      file: `cairn-ws-${host}-4194304.100-gggggg`,
      link: `cairn-ws-${host}-4194304.100-hhhhhh`,
    };
    for (const name of [names.deadPid, names.reusedPid, names.liveParent, names.otherHost, names.olderVersion, names.otherKind]) {
      await mkdir(join(root, name, "home"), { recursive: true });
      await writeFile(join(root, name, "home", ".bash_history"), "ls\n");
    }
    await writeFile(join(root, names.file), "not a directory");
    const target = await mkdtemp(join(tmpdir(), "cairn-private-dirs-target-"));
    try {
      await writeFile(join(target, "kept"), "kept");
      await symlink(target, join(root, names.link));

      const removed = await removeStalePrivateDirectories(root, "cairn-ws");

      expect(removed.sort()).toEqual([names.deadPid, names.reusedPid].sort());
      expect((await readdir(root)).sort()).toEqual(
        [own, names.liveParent, names.otherHost, names.olderVersion, names.otherKind, names.file, names.link].sort(),
      );
      // A link is not followed: what it points at stays.
      expect(await readdir(target)).toEqual(["kept"]);
    } finally {
      await rm(target, { recursive: true, force: true });
    }
  });

  it("removes nothing where no process's start time can be read (no /proc): every directory would look stale", async () => {
    const made = basename(await makePrivateDirectory(root, "cairn-ws"));
    const host = made.split("-")[2];
    await mkdir(join(root, `cairn-ws-${host}-4194304.100-aaaaaa`));
    expect(await removeStalePrivateDirectories(root, "cairn-ws", () => undefined)).toEqual([]);
    expect(await readdir(root)).toHaveLength(2);
  });

  it("keeps a label in the name (a sandboxed command's), and sweeps labelled ones like the rest", async () => {
    const made = basename(await makePrivateDirectory(root, "cairn-cmd", "mcp-every thing"));
    expect(made).toMatch(new RegExp(`^cairn-cmd-[0-9a-f]{8}-${process.pid}\\.\\d+-mcp-every_thing-[A-Za-z0-9]{6}$`));
    const host = made.split("-")[2];
    const stale = `cairn-cmd-${host}-4194304.100-mcp-other-abcdef`;
    await mkdir(join(root, stale));
    expect(await removeStalePrivateDirectories(root, "cairn-cmd")).toEqual([stale]);
    expect(await readdir(root)).toEqual([made]);
    // An empty label is none (the name stays one the sweep knows).
    const unlabelled = basename(await makePrivateDirectory(root, "cairn-cmd", ""));
    expect(unlabelled).toMatch(new RegExp(`^cairn-cmd-[0-9a-f]{8}-${process.pid}\\.\\d+-[A-Za-z0-9]{6}$`));
  });

  it("sweeps the root in the background when a process makes its first directory there", async () => {
    const own = basename(await makePrivateDirectory(root, "cairn-worker"));
    const host = own.split("-")[2];
    const stale = `cairn-worker-${host}-4194304.100-zzzzzz`;
    await mkdir(join(root, stale));
    const sweeps = await mkdtemp(join(tmpdir(), "cairn-private-dirs-sweep-"));
    try {
      const left = `cairn-worker-${host}-4194304.100-yyyyyy`;
      await mkdir(join(sweeps, left));
      // The first directory made under `sweeps` sweeps it: the stale one goes without anyone waiting for it.
      const made = basename(await makePrivateDirectory(sweeps, "cairn-worker"));
      await expect.poll(async () => (await readdir(sweeps)).sort(), { timeout: 5_000 }).toEqual([made]);
      // `root` was swept at its first directory (before `stale` was there), and not again.
      expect((await readdir(root)).sort()).toEqual([own, stale].sort());
    } finally {
      await rm(sweeps, { recursive: true, force: true });
    }
  });
});
