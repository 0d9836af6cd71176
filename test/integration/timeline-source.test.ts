import { readFileSync } from "node:fs";
import { join } from "node:path";
import { TRPCClientError } from "@trpc/client";
import { describe, expect, it } from "vitest";
import { buildTimeline, type TimelineSource } from "@cairn/core/timeline";
import { eventually, startApiFixture } from "./api-harness.ts";

const claudeCodeFixture = join(import.meta.dirname, "..", "..", "packages", "core", "src", "timeline", "__fixtures__", "claude-code-explore-edit.jsonl");

describe("timeline over HTTP", () => {
  it("serves a session's lines with tool timings: two read-only calls of one turn ran in parallel", async () => {
    await using fixture = await startApiFixture({ files: { "README.md": "# test\n", "src/a.ts": "export const a = 1;\n" } });
    // The simulator's script names the workspace's files by their real paths, known once it exists.
    await fetch(`${fixture.sim.url}/_sim/scenario`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        turns: [
          {
            content: [
              { type: "text", text: "Looking." },
              { type: "tool_use", name: "Glob", input: { pattern: "**/*.ts", path: fixture.root } },
              { type: "tool_use", name: "Read", input: { file_path: join(fixture.root, "README.md") } },
            ],
          },
          { content: [{ type: "text", text: "Done." }] },
        ],
      }),
    });
    const { sessionId } = await fixture.client.session.create.mutate();
    await fixture.client.session.send.mutate({ sessionId, prompt: "look around" });
    await eventually(async () => {
      const snapshot = await fixture.client.session.get.query({ sessionId });
      expect(snapshot.running).toBe(false);
      expect(snapshot.messages.length).toBeGreaterThanOrEqual(4);
    }, 30_000);

    const source = await fixture.client.timeline.source.query({ sessionId });
    expect(source).toMatchObject({ sessionId, imported: false, sidechains: [], damage: { malformedLines: 0, tornTail: false } });
    expect(source.lines[0]!.type).toBe("cairn-session");
    // The client types the JSON (unknown fields become optional); the builder checks every field anyway.
    const timeline = buildTimeline(source as unknown as TimelineSource);
    expect(timeline.timingKnown).toBe(true);
    const tools = timeline.events.filter((event) => event.kind === "tool");
    expect(tools.map((tool) => tool.toolName).sort()).toEqual(["Glob", "Read"]);
    const [first, second] = tools as [(typeof tools)[number], (typeof tools)[number]];
    expect(first.detail.kind === "tool" && second.detail.kind === "tool" && first.detail.batch === second.detail.batch).toBe(true);
    expect(first.start! <= second.end! && second.start! <= first.end!).toBe(true);
    const models = timeline.events.filter((event) => event.kind === "model");
    expect(models).toHaveLength(2);
    expect(models.every((model) => model.timingKnown && model.detail.kind === "model" && model.detail.tokens !== null)).toBe(true);
  });

  it("imports an uploaded Claude Code transcript, counts its broken lines, and draws it without durations", async () => {
    await using fixture = await startApiFixture();
    const jsonl = `${readFileSync(claudeCodeFixture, "utf8")}{"type":"user","uuid":"broken\n[1,2]\n`;
    const imported = await fixture.client.timeline.importTranscript.mutate({ jsonl, name: "../../etc/explore edit.jsonl" });
    expect(imported.messageCount).toBeGreaterThan(5);
    expect(imported.report.malformedLines).toBeGreaterThanOrEqual(2);
    const source = await fixture.client.timeline.source.query({ sessionId: imported.sessionId });
    expect(source.imported).toBe(true);
    const timeline = buildTimeline(source as unknown as TimelineSource);
    expect(timeline.timingKnown).toBe(false);
    expect(timeline.events.filter((event) => event.kind === "tool").map((event) => event.toolName)).toEqual(["Glob", "Grep", "Read", "Edit", "Bash"]);
    // Imported into this workspace: the IDE can open it.
    expect((await fixture.client.session.list.query()).some((session) => session.sessionId === imported.sessionId)).toBe(true);
  });

  it("refuses an upload with no conversation, and an unknown session, with typed errors", async () => {
    await using fixture = await startApiFixture();
    const refused = await fixture.client.timeline.importTranscript.mutate({ jsonl: "not json\n{also not\n" }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(TRPCClientError);
    expect((refused as TRPCClientError<never>).data).toMatchObject({ httpStatus: 400, cairn: { code: "invalid_transcript" } });
    const missing = await fixture.client.timeline.source.query({ sessionId: "no-such-session" }).catch((error: unknown) => error);
    expect((missing as TRPCClientError<never>).data).toMatchObject({ httpStatus: 404, cairn: { code: "session_not_found" } });
  });

  it("rejects requests without the access token", async () => {
    await using fixture = await startApiFixture();
    const response = await fetch(`${fixture.server.url}/api/trpc/timeline.source?input=${encodeURIComponent(JSON.stringify({ sessionId: "x" }))}`);
    expect(response.status).toBe(401);
  });
});
