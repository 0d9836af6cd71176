import { describe, expect, it } from "vitest";
import { WorkspaceError } from "@cairn/core";
import type { StdioLaunchRequest } from "@cairn/core/node";
import { createMcpSandboxLauncher } from "./mcp-sandbox.ts";

const request: StdioLaunchRequest = {
  serverName: "files",
  command: "node",
  args: ["server.js"],
  serverEnv: { DEBUG: "1" },
  baseEnv: { PATH: "/usr/bin", HOME: "/home/me" },
  cwd: "/ws",
};
const base = { root: "/ws", cairnHome: "/home/me/.cairn" };

describe("createMcpSandboxLauncher", () => {
  it("wraps the server with the workspace's sandbox policy and passes only the server's own env", async () => {
    const calls: unknown[] = [];
    const launcher = createMcpSandboxLauncher({
      ...base,
      additionalDirectories: ["/shared"],
      sandbox: { enabled: true, allowedDomains: ["registry.npmjs.org"], denyRead: ["/secrets"] },
      createSandboxedCommand: async (options) => {
        calls.push(options);
        return {
          command: "/bin/bash",
          args: ["-c", "bwrap …"],
          env: { PATH: "/usr/bin", HOME: "/tmp/p/home" },
          cwd: "/ws",
          home: "/tmp/p/home",
          tmpDir: "/tmp/p/tmp",
          dispose: async () => undefined,
        };
      },
    });
    const launch = await launcher(request);
    expect(calls).toEqual([
      {
        command: "node",
        args: ["server.js"],
        root: "/ws",
        additionalDirectories: ["/shared"],
        cwd: "/ws",
        env: { DEBUG: "1" },
        policy: { enabled: true, allowedDomains: ["registry.npmjs.org"], denyRead: ["/secrets"] },
        cairnHome: "/home/me/.cairn",
        label: "mcp-files",
      },
    ]);
    expect(launch).toMatchObject({ command: "/bin/bash", env: { HOME: "/tmp/p/home" }, info: { sandboxed: true } });
    expect(launch.info.warning).toBeUndefined();
  });

  it("fails closed when the sandbox is on but cannot start: the server is not started", async () => {
    const launcher = createMcpSandboxLauncher({
      ...base,
      sandbox: { enabled: true },
      createSandboxedCommand: async () => {
        throw new WorkspaceError("sandbox_unavailable", "bubblewrap cannot create a sandbox on this machine.");
      },
    });
    await expect(launcher(request)).rejects.toMatchObject({
      code: "sandbox_unavailable",
      message: "sandbox unavailable: bubblewrap cannot create a sandbox on this machine.",
    });
  });

  it("says so when the settings turn the sandbox off, and lets other failures through", async () => {
    const off = createMcpSandboxLauncher({
      ...base,
      sandbox: { enabled: false },
      createSandboxedCommand: () => Promise.reject(new Error("must not be called")),
    });
    expect((await off(request)).info).toEqual({ sandboxed: false, warning: expect.stringContaining('"enabled": false') });
    const broken = createMcpSandboxLauncher({
      ...base,
      sandbox: { enabled: true },
      createSandboxedCommand: () => Promise.reject(new WorkspaceError("outside_workspace", "cwd outside")),
    });
    await expect(broken(request)).rejects.toMatchObject({ code: "outside_workspace" });
  });
});
