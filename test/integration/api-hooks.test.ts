import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EventsSubscriber, eventually, startApiFixture } from "./api-harness.ts";

type Line = Record<string, unknown>;

/** The JSON inputs a hook appended, one per line, to `file`. */
async function inputs(file: string): Promise<Line[]> {
  const text = await readFile(file, "utf8").catch(() => "");
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as Line);
}

describe("session hooks in the server", () => {
  it("Notification fires when a permission prompt waits and when the session goes idle; SessionStart and SessionEnd bracket the session", async () => {
    const log = (name: string) => `(cat; echo) >> "$CAIRN_PROJECT_DIR/${name}.log"`;
    await using fixture = await startApiFixture({
      settings: {
        hooks: {
          Notification: [
            { matcher: "permission_prompt", hooks: [{ type: "command", command: log("prompt") }] },
            { matcher: "idle_prompt|review_ready", hooks: [{ type: "command", command: log("other") }] },
          ],
          SessionStart: [{ hooks: [{ type: "command", command: log("start") }] }],
          SessionEnd: [{ hooks: [{ type: "command", command: log("end") }] }],
        },
      },
    });
    await fixture.client.meta.trust.mutate();
    fixture.sim.setScenario({
      turns: [
        { content: [{ type: "tool_use" as const, name: "Write", input: { file_path: join(fixture.root, "notes.txt"), content: "x\n" } }] },
        { content: [{ type: "text" as const, text: "Done." }] },
      ],
    });
    const { sessionId } = await fixture.client.session.create.mutate();
    const tab = new EventsSubscriber(fixture.server.url, fixture.server.token, sessionId);
    try {
      await eventually(() => expect(fixture.server.hub.bus.listenerCount(sessionId)).toBe(1));
      await fixture.client.session.send.mutate({ sessionId, prompt: "write the notes" });
      const request = await eventually(() => {
        const found = tab.events().find((event) => event.type === "permission-request");
        expect(found).toBeDefined();
        return found!;
      });
      if (request.type !== "permission-request") throw new Error("no permission request");
      const [prompted] = await eventually(async () => {
        const found = await inputs(join(fixture.root, "prompt.log"));
        expect(found).toHaveLength(1);
        return found;
      });
      expect(prompted).toMatchObject({
        hook_event_name: "Notification",
        notification_type: "permission_prompt",
        message: "Cairn needs your permission to use Write",
        session_id: sessionId,
      });

      await fixture.client.permission.respond.mutate({ sessionId, requestId: request.requestId, answer: { behavior: "allow", scope: "once" } });
      await eventually(async () => expect((await inputs(join(fixture.root, "other.log"))).map((input) => input.notification_type)).toEqual(["idle_prompt"]));
      expect(await inputs(join(fixture.root, "start.log"))).toMatchObject([{ hook_event_name: "SessionStart", source: "startup" }]);
      // The runs are on the bus (and in the transcript) like any hook's.
      await eventually(() =>
        expect(
          tab
            .events()
            .filter((event) => event.type === "hook-runs")
            .map((event) => (event.type === "hook-runs" ? event.event : "")),
        ).toEqual(expect.arrayContaining(["SessionStart", "Notification"])),
      );

      // A run an error stopped is an idle prompt (Claude Code's contract has no error type) that says so.
      fixture.sim.setScenario({ turns: [{ content: [], faults: [{ kind: "http", status: 400, message: "scripted failure" }] }] });
      await fixture.client.session.send.mutate({ sessionId, prompt: "fail please" });
      await eventually(async () =>
        expect((await inputs(join(fixture.root, "other.log"))).at(-1)).toMatchObject({
          notification_type: "idle_prompt",
          message: expect.stringMatching(/^Cairn stopped on an error: .*scripted failure/),
        }),
      );

      // Other parts of Cairn can notify too (e.g. a review that is ready).
      await fixture.server.hub.liveSession(sessionId)!.notify({ notificationType: "review_ready", message: "The review of 3 files is ready", title: "Review" });
      expect((await inputs(join(fixture.root, "other.log"))).at(-1)).toMatchObject({ notification_type: "review_ready", title: "Review" });
    } finally {
      await tab.stop();
    }
    await fixture.server.hub.close();
    expect(await inputs(join(fixture.root, "end.log"))).toMatchObject([{ hook_event_name: "SessionEnd", reason: "other" }]);
  });

  it("/clear ends the session with SessionEnd (reason clear) and the new session's first prompt runs SessionStart (source clear), its context reaching the model", async () => {
    const log = (name: string) => `(cat; echo) >> "$CAIRN_PROJECT_DIR/${name}.log"`;
    await using fixture = await startApiFixture({
      settings: {
        hooks: {
          SessionStart: [
            { hooks: [{ type: "command", command: log("start") }] },
            { matcher: "clear", hooks: [{ type: "command", command: "echo 'Fresh start after /clear: re-read TODO.md'" }] },
          ],
          SessionEnd: [{ hooks: [{ type: "command", command: log("end") }] }],
        },
      },
    });
    await fixture.client.meta.trust.mutate();
    const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });
    fixture.sim.setScenario({ turns: [text("first answer"), text("second answer")] });
    const { sessionId } = await fixture.client.session.create.mutate();
    await fixture.client.session.send.mutate({ sessionId, prompt: "hello" });
    await eventually(async () => expect((await fixture.client.session.get.query({ sessionId })).messages.length).toBeGreaterThanOrEqual(2));
    await fixture.server.hub.liveSession(sessionId)!.idle();

    const cleared = await fixture.client.session.send.mutate({ sessionId, prompt: "/clear" });
    expect(cleared.command).toMatchObject({ name: "clear" });
    const newSessionId = cleared.command!.sessionId!;
    expect(newSessionId).not.toBe(sessionId);
    expect(await inputs(join(fixture.root, "end.log"))).toMatchObject([{ hook_event_name: "SessionEnd", reason: "clear", session_id: sessionId }]);

    const before = fixture.sim.requests.length;
    await fixture.client.session.send.mutate({ sessionId: newSessionId, prompt: "what now?" });
    await eventually(() => expect(fixture.sim.requests.length).toBe(before + 1));
    const sent = JSON.stringify((fixture.sim.requests[before]!.body as { messages: unknown }).messages);
    expect(sent).toContain("Fresh start after /clear: re-read TODO.md");
    expect(sent).not.toContain("first answer");
    expect((await inputs(join(fixture.root, "start.log"))).map((input) => [input.source, input.session_id])).toEqual([
      ["startup", sessionId],
      ["clear", newSessionId],
    ]);
    await fixture.server.hub.close();
    // The old session's SessionEnd ran once, at /clear; closing the server ends only the new one.
    expect((await inputs(join(fixture.root, "end.log"))).map((input) => [input.reason, input.session_id])).toEqual([
      ["clear", sessionId],
      ["other", newSessionId],
    ]);
  });
});
