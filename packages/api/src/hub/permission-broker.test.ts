import { describe, expect, it } from "vitest";
import type { PermissionRequest } from "@cairn/core";
import { PermissionBroker } from "./permission-broker.ts";

const request = (requestId: string): PermissionRequest => ({
  requestId,
  toolUseId: `tool-${requestId}`,
  toolName: "Write",
  input: { file_path: "/w/a.txt" },
  reason: { type: "default", reason: "edits ask" },
  suggestions: [],
});

describe("PermissionBroker", () => {
  it("resolves a question with the first answer and refuses the rest", async () => {
    const broker = new PermissionBroker();
    const answer = broker.ask(request("r1"), new AbortController().signal);
    expect(broker.pending().map((pending) => pending.requestId)).toEqual(["r1"]);
    expect(broker.respond("r1", { behavior: "allow", scope: "once" })).toBe(true);
    expect(broker.respond("r1", { behavior: "deny" })).toBe(false);
    expect(await answer).toEqual({ behavior: "allow", scope: "once" });
    expect(broker.pending()).toEqual([]);
    expect(broker.respond("r1", { behavior: "deny" })).toBe(false);
    expect(broker.respond("unknown", { behavior: "deny" })).toBe(false);
  });

  it("keeps an answer that arrives between the question's event and the loop's ask", async () => {
    const broker = new PermissionBroker();
    broker.announce(request("r2"));
    expect(broker.respond("r2", { behavior: "deny", feedback: "no" })).toBe(true);
    expect(broker.pending()).toEqual([]);
    expect(await broker.ask(request("r2"), new AbortController().signal)).toEqual({ behavior: "deny", feedback: "no" });
  });

  it("rejects a waiting question when the run is interrupted", async () => {
    const broker = new PermissionBroker();
    const controller = new AbortController();
    const answer = broker.ask(request("r3"), controller.signal);
    controller.abort(new Error("Interrupted by the user"));
    await expect(answer).rejects.toThrow("Interrupted by the user");
    expect(broker.pending()).toEqual([]);
    expect(broker.respond("r3", { behavior: "allow", scope: "once" })).toBe(false);
  });

  it("tells its listeners when the waiting questions change", async () => {
    const broker = new PermissionBroker();
    const seen: string[][] = [];
    const stop = broker.onChange(() => seen.push(broker.pending().map((pending) => pending.requestId)));
    const answer = broker.ask(request("r4"), new AbortController().signal);
    broker.announce(request("r5"));
    broker.respond("r4", { behavior: "allow", scope: "once" });
    await answer;
    broker.settle("r5");
    stop();
    broker.announce(request("r6"));
    expect(seen).toEqual([["r4"], ["r4", "r5"], ["r5"], ["r5"], []]);
  });
});
