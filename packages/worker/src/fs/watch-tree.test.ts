import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { WatchEvent } from "@cairn/core";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { makeFixture, type Fixture } from "../testing/fixture.ts";
import { watchTree } from "./watch-tree.ts";

let fixture: Fixture;
let controller: AbortController;
let events: WatchEvent[];

beforeEach(async () => {
  fixture = await makeFixture();
  await mkdir(join(fixture.root, "src", "deep"), { recursive: true });
  await mkdir(join(fixture.root, "node_modules", "pkg"), { recursive: true });
  await mkdir(join(fixture.root, ".git"));
  controller = new AbortController();
  events = [];
});

afterEach(async () => {
  controller.abort();
  await fixture.cleanup();
});

const saw = (path: string) => events.some((event) => event.path === path);

describe("watchTree", () => {
  it("reports changes anywhere in the tree with absolute paths, including directories created later", async () => {
    watchTree(fixture.root, (event) => events.push(event), controller.signal);
    const deep = join(fixture.root, "src", "deep", "file.ts");
    await vi.waitFor(
      async () => {
        await writeFile(deep, `${Date.now()}`);
        expect(saw(deep)).toBe(true);
      },
      { timeout: 5_000, interval: 100 },
    );
    await mkdir(join(fixture.root, "later"));
    const later = join(fixture.root, "later", "new.ts");
    await vi.waitFor(
      async () => {
        await writeFile(later, `${Date.now()}`);
        expect(saw(later)).toBe(true);
      },
      { timeout: 5_000, interval: 100 },
    );
  });

  it("ignores .git and node_modules, and stops after abort", async () => {
    watchTree(fixture.root, (event) => events.push(event), controller.signal);
    const marker = join(fixture.root, "marker.txt");
    await vi.waitFor(
      async () => {
        await writeFile(join(fixture.root, ".git", "index"), `${Date.now()}`);
        await writeFile(join(fixture.root, "node_modules", "pkg", "index.js"), `${Date.now()}`);
        await writeFile(marker, `${Date.now()}`);
        expect(saw(marker)).toBe(true);
      },
      { timeout: 5_000, interval: 100 },
    );
    expect(events.filter((event) => event.path.includes("/.git/") || event.path.includes("/node_modules/"))).toEqual([]);
    controller.abort();
    const count = events.length;
    await writeFile(marker, "after abort");
    // Give a (wrongly) live watcher the time to deliver: an fs event arrives within a few milliseconds.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(events.length).toBe(count);
  });
});
