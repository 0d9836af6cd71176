import { describe, expect, it } from "vitest";
import { SseDecoder } from "./sse.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

describe("SseDecoder", () => {
  it("returns every message a chunk completes, across chunk boundaries and CRLF", () => {
    const decoder = new SseDecoder();
    expect(decoder.push(bytes("event: ping\ndata: {}\n\nevent: message_st"))).toEqual([{ event: "ping", data: "{}" }]);
    expect(decoder.push(bytes('art\r\ndata: {"a":1}\r\n\r\n: a comment\n\ndata: line one\ndata: line two\n\n'))).toEqual([
      { event: "message_start", data: '{"a":1}' },
      { event: null, data: "line one\nline two" },
    ]);
  });

  it("splits a multi-byte character across chunks without corrupting it", () => {
    const decoder = new SseDecoder();
    const encoded = bytes('data: {"t":"héllo ☃"}\n\n');
    const cut = encoded.indexOf(0xe2) + 1;
    expect(decoder.push(encoded.slice(0, cut))).toEqual([]);
    expect(decoder.push(encoded.slice(cut))).toEqual([{ event: null, data: '{"t":"héllo ☃"}' }]);
  });

  it("flushes a last message without its blank line at the end of the body", () => {
    const decoder = new SseDecoder();
    expect(decoder.push(bytes("event: message_stop\ndata: {}"))).toEqual([]);
    expect(decoder.end()).toEqual([{ event: "message_stop", data: "{}" }]);
  });
});
