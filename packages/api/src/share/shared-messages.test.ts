import { describe, expect, it } from "vitest";
import type { ConversationMessage } from "@cairn/core/schema";
import { groupHits } from "./share-service.ts";
import { titleOf } from "../hub/session-derive.ts";
import { createRedactor } from "./redact.ts";
import { pinFor, sharedMessages, sharedTitle } from "./shared-messages.ts";

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

describe("the shared title", () => {
  const redactor = createRedactor();
  const key = `sk-ant-api03-${"AbCdEfGhIj".repeat(9)}AA`;
  const prompt = (text: string): ConversationMessage => ({
    type: "user",
    uuid: "p",
    parentUuid: null,
    timestamp: "2026-11-01T00:00:00.000Z",
    message: { role: "user", content: text },
  });

  it("is made again from the redacted first prompt when the title was cut from it (a half key has no shape)", () => {
    // The key starts 62 characters in: the 77-character title keeps 15 characters of it.
    const lead = "Check the deployment of the cluster and then use the key ".padEnd(62, "!");
    const messages = [prompt(`${lead}${key} please, then report back`)];
    const title = titleOf(messages) ?? "";
    expect(title).toContain("sk-ant-api03");
    expect(redactor.redactText(title).text).toContain("sk-ant-api03");
    const shown = sharedTitle(redactor, title, messages, redactor.redactValue(messages).value);
    expect(shown).toBe(`${lead}[REDACTED]…`);
  });

  it("redacts another title as it is and drops a cut-off token of a known secret prefix at its end", () => {
    expect(sharedTitle(redactor, `Token ghp_${"a1".repeat(18)} leaked`, [], [])).toBe("Token [REDACTED:github-token] leaked");
    expect(sharedTitle(redactor, "Rotate the key sk-ant-api03-AbCd…", [], [])).toBe("Rotate the key [REDACTED:truncated]…");
    expect(sharedTitle(redactor, "Fix the parser…", [], [])).toBe("Fix the parser…");
  });
});
