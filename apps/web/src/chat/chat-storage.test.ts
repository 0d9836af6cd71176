import { describe, expect, it } from "vitest";
import { applyEvents } from "./chat-reducer.ts";
import { loadChat, saveChat } from "./chat-storage.ts";
import { initialChatState } from "./chat-types.ts";
import { numbered } from "./test-events.ts";

/** A Storage with a byte quota, as sessionStorage has. */
function memoryStorage(quota = Infinity): Storage {
  const data = new Map<string, string>();
  return {
    get length() {
      return data.size;
    },
    clear: () => data.clear(),
    getItem: (key) => data.get(key) ?? null,
    key: (index) => [...data.keys()][index] ?? null,
    removeItem: (key) => void data.delete(key),
    setItem: (key, value) => {
      const used = [...data.entries()].filter(([k]) => k !== key).reduce((sum, [k, v]) => sum + k.length + v.length, 0);
      if (used + key.length + value.length > quota) throw new DOMException("quota", "QuotaExceededError");
      data.set(key, value);
    },
  };
}

describe("chat storage", () => {
  const streamed = applyEvents(
    initialChatState(),
    numbered([
      { type: "message-start", messageId: "msg_1", model: "m" },
      { type: "text-delta", index: 0, text: "half an ans" },
    ]),
  );

  it("round-trips the view with the id to resume after", () => {
    const storage = memoryStorage();
    expect(saveChat(storage, "s1", streamed)).toBe(true);
    const loaded = loadChat(storage, "s1");
    expect(loaded).toEqual(streamed);
    expect(loaded?.lastEventId).toBe("2");
    expect(loadChat(storage, "other")).toBeNull();
  });

  it("saves nothing before any event was seen", () => {
    const storage = memoryStorage();
    expect(saveChat(storage, "s1", initialChatState())).toBe(false);
    expect(loadChat(storage, "s1")).toBeNull();
  });

  it("drops the saved copy when the quota is exceeded rather than keep a stale one", () => {
    const storage = memoryStorage(600);
    expect(saveChat(storage, "s1", streamed)).toBe(true);
    const big = applyEvents(streamed, numbered([{ type: "text-delta", index: 0, text: "x".repeat(1000) }], 3));
    expect(saveChat(storage, "s1", big)).toBe(false);
    expect(loadChat(storage, "s1")).toBeNull();
  });

  it("ignores corrupt or foreign entries", () => {
    const storage = memoryStorage();
    storage.setItem("cairn:chat:s1", "{not json");
    expect(loadChat(storage, "s1")).toBeNull();
    storage.setItem("cairn:chat:s1", JSON.stringify({ format: 1, sessionId: "s1", state: streamed }));
    expect(loadChat(storage, "s1")).toBeNull();
  });
});
