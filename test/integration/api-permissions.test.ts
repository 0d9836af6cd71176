import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { SessionEvent } from "@cairn/api";
import { EventsSubscriber, startApiFixture, eventually } from "./api-harness.ts";

function writeScenario(path: string) {
  return {
    turns: [
      { content: [{ type: "tool_use" as const, name: "Write", input: { file_path: path, content: "written by the agent\n" } }] },
      { content: [{ type: "text" as const, text: "Done." }] },
    ],
  };
}

const requestOf = (events: readonly SessionEvent[]) => events.find((event) => event.type === "permission-request");

describe("permission questions over the API", () => {
  it("resolves on the first answer from any tab; every tab sees it resolved; later answers are refused", async () => {
    const target = "notes.txt";
    await using fixture = await startApiFixture({ scenario: { turns: [] } });
    fixture.sim.setScenario(writeScenario(join(fixture.root, target)));
    const { sessionId } = await fixture.client.session.create.mutate();
    const tabA = new EventsSubscriber(fixture.server.url, fixture.server.token, sessionId);
    const tabB = new EventsSubscriber(fixture.server.url, fixture.server.token, sessionId);
    try {
      await eventually(() => expect(fixture.server.hub.bus.listenerCount(sessionId)).toBe(2));
      await fixture.client.session.send.mutate({ sessionId, prompt: "write the notes" });

      await eventually(() => expect(requestOf(tabA.events())).toBeDefined());
      await eventually(() => expect(requestOf(tabB.events())).toBeDefined());
      const request = requestOf(tabA.events());
      if (request?.type !== "permission-request") throw new Error("no permission request");
      expect(request.toolName).toBe("Write");
      expect(requestOf(tabB.events())).toEqual(request);

      // A tab that opens now learns of the question from the snapshot.
      const snapshot = await fixture.client.session.get.query({ sessionId });
      expect(snapshot.pendingPermissions.map((pending) => pending.requestId)).toEqual([request.requestId]);
      expect(snapshot.running).toBe(true);

      const [first, second] = await Promise.all([
        fixture.client.permission.respond.mutate({ sessionId, requestId: request.requestId, answer: { behavior: "allow", scope: "once" } }),
        fixture.client.permission.respond.mutate({ sessionId, requestId: request.requestId, answer: { behavior: "deny" } }),
      ]);
      expect([first.accepted, second.accepted].sort()).toEqual([false, true]);
      const winner = first.accepted ? "allow" : "deny";

      for (const tab of [tabA, tabB]) {
        await eventually(() =>
          expect(tab.events().find((event) => event.type === "permission-resolved")).toEqual({
            type: "permission-resolved",
            requestId: request.requestId,
            behavior: winner,
          }),
        );
        await eventually(() => expect(tab.events().some((event) => event.type === "result")).toBe(true));
      }
      const late = await fixture.client.permission.respond.mutate({ sessionId, requestId: request.requestId, answer: { behavior: "allow", scope: "once" } });
      expect(late.accepted).toBe(false);
      expect((await fixture.client.session.get.query({ sessionId })).pendingPermissions).toEqual([]);

      const written = await readFile(join(fixture.root, target), "utf8").catch(() => null);
      expect(written).toBe(winner === "allow" ? "written by the agent\n" : null);
    } finally {
      await Promise.all([tabA.stop(), tabB.stop()]);
    }
  });

  it("an interrupt while a question waits ends the run and withdraws the question", async () => {
    await using fixture = await startApiFixture();
    fixture.sim.setScenario(writeScenario(join(fixture.root, "never.txt")));
    const { sessionId } = await fixture.client.session.create.mutate();
    const tab = new EventsSubscriber(fixture.server.url, fixture.server.token, sessionId);
    try {
      await eventually(() => expect(fixture.server.hub.bus.listenerCount(sessionId)).toBe(1));
      await fixture.client.session.send.mutate({ sessionId, prompt: "write it" });
      await eventually(() => expect(requestOf(tab.events())).toBeDefined());
      expect((await fixture.client.session.interrupt.mutate({ sessionId })).interrupted).toBe(true);
      await eventually(async () => expect((await fixture.client.session.get.query({ sessionId })).running).toBe(false));
      await eventually(() => expect(tab.events().some((event) => event.type === "result")).toBe(true));
      const result = tab.events().find((event) => event.type === "result");
      expect(result?.type === "result" && result.terminal.reason).toBe("aborted_tools");
      expect(tab.events().find((event) => event.type === "permission-resolved")).toMatchObject({ behavior: "deny" });
      expect((await fixture.client.session.get.query({ sessionId })).pendingPermissions).toEqual([]);
      await expect(readFile(join(fixture.root, "never.txt"), "utf8")).rejects.toThrow();
    } finally {
      await tab.stop();
    }
  });
});
