import { describe, expect, it } from "vitest";
import type { ConversationMessage } from "@cairn/core/schema";
import { groupHits } from "./share-service.ts";
import { pinFor, sharedMessages } from "./shared-messages.ts";

const message = (uuid: string, isSidechain = false): ConversationMessage => ({
  type: "user",
  uuid,
  parentUuid: null,
  timestamp: "2026-11-01T00:00:00.000Z",
  ...(isSidechain ? { isSidechain } : {}),
  message: { role: "user", content: uuid },
});

const history = [message("a"), message("side", true), message("b"), message("c")];

describe("what a share shows", () => {
  it("is the main thread, up to and including the pin", () => {
    expect(sharedMessages(history, null).map((each) => each.uuid)).toEqual(["a", "b", "c"]);
    expect(sharedMessages(history, "b").map((each) => each.uuid)).toEqual(["a", "b"]);
    // A pin that is gone shows nothing rather than more.
    expect(sharedMessages(history, "gone")).toEqual([]);
  });

  it("pins snapshots at the given main-thread message or the last one; live shares have no pin", () => {
    expect(pinFor("snapshot", history, undefined)).toBe("c");
    expect(pinFor("snapshot", history, "a")).toBe("a");
    expect(pinFor("snapshot", [], undefined)).toBeNull();
    expect(pinFor("live", history, "a")).toBeNull();
    expect(() => pinFor("snapshot", history, "side")).toThrow(/main thread/);
  });

  it("groups preview hits by kind with up to three distinct masked examples", () => {
    const hits = ["x1", "x2", "x2", "x3", "x4"].map((preview) => ({ kind: "jwt", preview }));
    expect(groupHits([...hits, { kind: "npm-token", preview: "np…" }])).toEqual([
      { kind: "jwt", count: 5, examples: ["x1", "x2", "x3"] },
      { kind: "npm-token", count: 1, examples: ["np…"] },
    ]);
  });
});
