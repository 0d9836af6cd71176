import { createServer, type AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { execOptions, makeFixture, openWorkspace } from "../testing/fixture.ts";

describe("with the sandbox disabled by the administrator", () => {
  it("runs the shell unconfined and says so, still with a scrubbed environment", async () => {
    const fixture = await makeFixture();
    let connections = 0;
    const server = createServer((socket) => {
      connections += 1;
      socket.end("SERVER-REACHED\n");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as AddressInfo).port;
    process.env.ANTHROPIC_API_KEY = "sk-disabled-test";
    const workspace = await openWorkspace(fixture, { sandbox: { enabled: false } });
    try {
      // The same reads and connections the sandbox refuses go through here, which shows those tests can fail.
      const result = await workspace.exec(`cat ../canary.txt; (exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3); env`, execOptions());
      expect(result.sandboxed).toBe(false);
      expect(result.stdout).toContain(fixture.canary);
      expect(result.stdout).toContain("SERVER-REACHED");
      expect(connections).toBe(1);
      expect(result.stdout).not.toContain("sk-disabled-test");
      // File operations stay confined whatever the sandbox setting.
      await expect(workspace.readFile("../canary.txt")).rejects.toMatchObject({ code: "outside_workspace" });
    } finally {
      delete process.env.ANTHROPIC_API_KEY;
      await workspace.dispose();
      server.close();
      await fixture.cleanup();
    }
  });
});
