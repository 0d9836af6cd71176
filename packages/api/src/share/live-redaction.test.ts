import { describe, expect, it } from "vitest";
import type { SessionEvent } from "../router/types.ts";
import { LiveEventRedactor } from "./live-redaction.ts";
import { createRedactor } from "./redact.ts";

const KEY = "ghp_0123456789abcdefghijABCDEFGHIJ012345";
const redactor = createRedactor({ workspaceRoot: "/w/app" });

function run(events: SessionEvent[], options: { maxHeldChars?: number } = {}): SessionEvent[] {
  const live = new LiveEventRedactor(redactor, options);
  return events.flatMap((event) => live.redact(event));
}

const text = (events: SessionEvent[]) => events.flatMap((event) => (event.type === "text-delta" ? [event.text] : [])).join("");
const deltas = (chunks: string[]): SessionEvent[] => chunks.map((chunk) => ({ type: "text-delta", index: 0, text: chunk }));

describe("live redaction of streamed text", () => {
  it("catches a key split over several deltas and lets text out line by line", () => {
    const out = run([
      { type: "message-start", messageId: "m1", model: "x" },
      { type: "block-start", index: 0, blockType: "text" },
      ...deltas(["Your token is ghp_0123456789", "abcdefghijABCDEF", "GHIJ012345 and", " it lives in /w/app/.env\nmore"]),
      { type: "block-stop", index: 0 },
    ]);
    const streamed = text(out);
    expect(streamed).toBe("Your token is [REDACTED:github-token] and it lives in ./.env\nmore");
    expect(JSON.stringify(out)).not.toContain("ghp_0123456789");
    // Nothing came out before the line was complete.
    const firstDelta = out.findIndex((event) => event.type === "text-delta");
    expect(out[firstDelta]).toEqual({ type: "text-delta", index: 0, text: "Your token is [REDACTED:github-token] and it lives in ./.env\n" });
    expect(out.at(-1)).toEqual({ type: "block-stop", index: 0 });
  });

  it("holds a private key block until its END line", () => {
    const body = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7";
    const out = run([
      { type: "block-start", index: 0, blockType: "text" },
      ...deltas(["key:\n-----BEGIN PRIVATE KEY-----\n", `${body}\n`, `${body}\n`, "-----END PRIVATE KEY-----\n", "done"]),
      { type: "block-stop", index: 0 },
    ]);
    expect(text(out)).toBe("key:\n[REDACTED:private-key]\ndone");
    expect(JSON.stringify(out)).not.toContain(body);
  });

  it("lets a long line without newlines out at spaces", () => {
    const out = run([{ type: "block-start", index: 0, blockType: "text" }, ...deltas(["word ".repeat(100)])], { maxHeldChars: 100 });
    expect(text(out).length).toBeGreaterThan(200);
  });

  it("drops tool input deltas and redacts whole events", () => {
    const out = run([
      { type: "block-start", index: 1, blockType: "tool_use", toolUseId: "t1", name: "Bash" },
      { type: "tool-input-delta", index: 1, partialJson: `{"command":"echo ${KEY}"}` },
      { type: "block-stop", index: 1 },
      { type: "tool-start", toolUseId: "t1", name: "Bash", input: { command: `echo ${KEY}` }, startedAt: 1, batch: 0 },
      { type: "thinking-delta", index: 2, thinking: `the key ${KEY}\n` },
    ]);
    expect(out.map((event) => event.type)).toEqual(["block-start", "block-stop", "tool-start", "thinking-delta"]);
    expect(JSON.stringify(out)).not.toContain(KEY);
    expect(out[2]).toMatchObject({ input: { command: "echo [REDACTED:github-token]" } });
  });

  it("redacts Bash output line by line per call and stream, flushing at tool-end; other progress is not forwarded", () => {
    const progress = (chunk: string, stream = "stdout"): SessionEvent => ({
      type: "tool-progress",
      toolUseId: "t1",
      name: "Bash",
      data: { type: "bash_progress", stream, chunk },
    });
    const out = run([
      progress("token: ghp_0123456789abcdef"),
      progress("oops", "stderr"),
      progress("ghijABCDEFGHIJ012345\nline two"),
      { type: "tool-progress", toolUseId: "t2", name: "Agent", data: { type: "text-delta", index: 0, text: "subagent text" } },
      { type: "tool-end", record: { toolUseId: "t1", name: "Bash", startedAt: 1, endedAt: 2, durationMs: 1, permissionWaitMs: 0, isError: false } },
    ]);
    const chunks = out.flatMap((event) =>
      event.type === "tool-progress" ? [`${(event.data as { stream: string }).stream}:${(event.data as { chunk: string }).chunk}`] : [],
    );
    expect(chunks).toEqual(["stdout:token: [REDACTED:github-token]\n", "stdout:line two", "stderr:oops"]);
    expect(JSON.stringify(out)).not.toContain("subagent text");
    expect(out.at(-1)?.type).toBe("tool-end");
  });

  it("redacts each streamed character once, however long the block grows", () => {
    let scanned = 0;
    const counting = { ...redactor, redactText: (input: string) => ((scanned += input.length), redactor.redactText(input)) };
    const live = new LiveEventRedactor(counting);
    const line = "a line of streamed output that is fifty characters\n";
    live.redact({ type: "block-start", index: 0, blockType: "text" });
    for (let index = 0; index < 2_000; index++) live.redact({ type: "text-delta", index: 0, text: line });
    live.redact({ type: "block-stop", index: 0 });
    expect(scanned).toBe(line.length * 2_000);
  });
});
