import { readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { TerminalOutput } from "@cairn/api";
import { readSse, startApiFixture, eventually } from "./api-harness.ts";

type Chunk = { seq: number; output: TerminalOutput };

/** Reads terminal.output until stopped; the terminal's text so far is `text()`. */
function watchTerminal(url: string, token: string, terminalId: string, lastEventId?: string) {
  const controller = new AbortController();
  const chunks: Chunk[] = [];
  const input = encodeURIComponent(JSON.stringify({ terminalId, ...(lastEventId ? { lastEventId } : {}) }));
  const done = (async () => {
    try {
      for await (const message of readSse(`${url}/api/trpc/terminal.output?input=${input}`, {
        headers: { authorization: `Bearer ${token}` },
        signal: controller.signal,
      })) {
        if (message.event === "message" && message.id) chunks.push({ seq: Number(message.id), output: JSON.parse(message.data) as TerminalOutput });
      }
    } catch (error) {
      if (!controller.signal.aborted) throw error;
    }
  })();
  return {
    chunks,
    text: () => chunks.map((chunk) => (chunk.output.type === "data" ? chunk.output.data : "")).join(""),
    async stop() {
      controller.abort();
      await done;
    },
  };
}

describe("terminal procedures", () => {
  it("runs an interactive shell in the workspace, confined like the agent's Bash, and replays output on reconnect", async () => {
    await using fixture = await startApiFixture();
    const { client, server, root, parent } = fixture;
    const info = await client.meta.info.query();
    await writeFile(join(parent, "outside.txt"), "secret-outside");
    const { terminalId } = await client.terminal.open.mutate({ cols: 100, rows: 30 });
    const first = watchTerminal(server.url, server.token, terminalId);
    try {
      await client.terminal.input.mutate({ terminalId, data: "pwd; echo sum=$((40+2)); echo $HOME\n" });
      await eventually(() => expect(first.text()).toMatch(/sum=42/), 15_000);
      expect(first.text()).toContain(root);
      // The confinement checks below need the sandbox, which CI installs (bubblewrap, socat).
      expect(info.sandbox).toEqual({ available: true });
      // The echo of the typed line shows `$((1))`; only the shell's output shows `1`. Inside the workspace the same
      // touch and cat work (so a missing program cannot pass for a refusal); outside it the sandbox either refuses the
      // write or sends it to a throwaway tmpfs, and refuses the read.
      await client.terminal.input.mutate({
        terminalId,
        data: `touch inside.txt && echo secret-inside > inside.txt && cat inside.txt && echo inside-$((3))-ok\n`,
      });
      await eventually(() => expect(first.text()).toContain("inside-3-ok"), 15_000);
      expect(await readFile(join(root, "inside.txt"), "utf8")).toBe("secret-inside\n");
      await client.terminal.input.mutate({ terminalId, data: `touch ${join(parent, "escaped.txt")}; echo tried-$((1))\n` });
      await eventually(() => expect(first.text()).toContain("tried-1"), 15_000);
      await expect(stat(join(parent, "escaped.txt"))).rejects.toThrow();
      await client.terminal.input.mutate({ terminalId, data: `cat ${join(parent, "outside.txt")} || echo read-$((2))-refused\n` });
      await eventually(() => expect(first.text()).toContain("read-2-refused"), 15_000);
      expect(first.text()).not.toContain("secret-outside");
      await client.terminal.resize.mutate({ terminalId, cols: 120, rows: 40 });
    } finally {
      await first.stop();
    }
    const seen = first.chunks.at(-1)!.seq;

    await client.terminal.input.mutate({ terminalId, data: "echo after-reconnect\n" });
    const second = watchTerminal(server.url, server.token, terminalId, String(seen));
    try {
      await eventually(() => expect(second.text()).toContain("after-reconnect"), 15_000);
      expect(second.chunks[0]!.seq).toBe(seen + 1);
      await client.terminal.close.mutate({ terminalId });
      await eventually(() => expect(second.chunks.some((chunk) => chunk.output.type === "exit")).toBe(true));
    } finally {
      await second.stop();
    }
    expect(server.terminals.openCount).toBe(0);
    const gone = await client.terminal.input.mutate({ terminalId, data: "x" }).catch((error: unknown) => error);
    expect(gone).toMatchObject({ data: { code: "NOT_FOUND", cairn: { code: "terminal_not_found" } } });
  });
});
