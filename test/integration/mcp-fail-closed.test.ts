import { execFile } from "node:child_process";
import { mkdir, mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { everythingServer } from "./mcp-support.ts";

/**
 * Stdio MCP servers fail closed, like Bash: when the sandbox is on but cannot start (here: bubblewrap
 * is not on the PATH), the server is not started and its status says why; only the administrator's
 * `"sandbox": { "enabled": false }` runs it unsandboxed.
 */
const child = join(dirname(fileURLToPath(import.meta.url)), "mcp-fail-closed.child.ts");
let parent: string;
let root: string;
let emptyPath: string;

beforeAll(async () => {
  parent = await realpath(await mkdtemp(join(tmpdir(), "cairn-mcp-closed-")));
  root = join(parent, "ws");
  emptyPath = join(parent, "no-programs");
  await mkdir(root);
  await mkdir(emptyPath);
});
afterAll(() => rm(parent, { recursive: true, force: true }));

type ServerView = { name: string; status: { state: string; reason?: string; warning?: string }; launch?: { sandboxed: boolean } };

function serversWith(settings: object): Promise<ServerView[]> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ["--import", "tsx", child, root, join(parent, "home"), everythingServer, JSON.stringify(settings)],
      { env: { PATH: emptyPath, HOME: parent }, timeout: 150_000 },
      (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(JSON.parse(stdout) as ServerView[])),
    );
  });
}

describe("stdio MCP servers when the sandbox cannot start", () => {
  it("are not started: status failed, sandbox unavailable", { timeout: 180_000 }, async () => {
    const [server] = await serversWith({});
    expect(server?.status.state).toBe("failed");
    expect(server?.status.reason).toMatch(/^sandbox unavailable: /);
    expect(server?.launch?.sandboxed).not.toBe(false);
  });

  it("run unsandboxed, with a warning, only when the settings turn the sandbox off (the same server, the same PATH)", { timeout: 180_000 }, async () => {
    const [server] = await serversWith({ sandbox: { enabled: false } });
    expect(server?.status).toMatchObject({ state: "connected", warning: expect.stringContaining("not sandboxed") });
    expect(server?.launch?.sandboxed).toBe(false);
  });
});
