import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SandboxedLauncher } from "../exec/shell-launcher.ts";
import { ShellSession } from "../exec/shell-session.ts";
import { execOptions, makeFixture, type Fixture } from "../testing/fixture.ts";
import { SandboxHost, processSandboxHost } from "./sandbox-host.ts";

let fixture: Fixture;
let savedPath: string | undefined;

beforeEach(async () => {
  fixture = await makeFixture();
  savedPath = process.env.PATH;
});

afterEach(async () => {
  process.env.PATH = savedPath;
  await fixture.cleanup();
});

describe("when the sandbox cannot start", () => {
  it("is available on this machine (tests and CI run the real sandbox)", async () => {
    expect(await processSandboxHost.probe()).toEqual({ available: true });
  });

  it("says why and how to fix it, and exec refuses with sandbox_unavailable instead of running unsandboxed", async () => {
    // With no PATH, the runtime finds neither bubblewrap nor socat: the state of a machine without them.
    process.env.PATH = "/nonexistent";
    const host = new SandboxHost();
    const probe = await host.probe();
    expect(probe.available).toBe(false);
    expect(probe.reason).toMatch(/bubblewrap|bwrap/);
    expect(probe.reason).toContain("apt-get install bubblewrap socat");
    expect(probe.reason).toContain('"enabled": false');
    const session = new ShellSession({
      launcher: new SandboxedLauncher({
        host,
        env: { PATH: "/usr/bin:/bin" },
        policy: { denyRead: [], allowRead: [fixture.root], allowWrite: [fixture.root], denyWrite: [] },
        allowAllNetwork: false,
        allowedDomains: [],
      }),
      root: fixture.root,
      runDirectory: fixture.root,
      prelude: "",
      isInsideWorkspace: () => true,
    });
    await expect(session.exec(`echo ran > ${fixture.root}/ran.txt`, execOptions())).rejects.toMatchObject({
      code: "sandbox_unavailable",
      message: expect.stringContaining("apt-get install bubblewrap socat"),
    });
    expect(await fixture.snapshotOutside()).not.toContain("ran.txt");
    await session.dispose();
  });
});
