import { describe, expect, it } from "vitest";
import { childMessageSchema, decodeLine, methodSchemas, parentMessageSchema } from "./protocol.ts";
import { parseTerminalParams, terminalMethodSchemas } from "./protocol-terminal.ts";

describe("the terminal messages of the worker protocol", () => {
  it("carries terminal calls as ordinary protocol calls, and their events tagged with the open call's id", () => {
    expect(Object.keys(methodSchemas)).toEqual(expect.arrayContaining(["terminalOpen", "terminalInput", "terminalResize", "terminalAck"]));
    const open = decodeLine(
      parentMessageSchema,
      JSON.stringify({ type: "call", id: 3, method: "terminalOpen", params: { terminalId: "t1", cols: 80, rows: 24 } }),
    );
    expect(open).toMatchObject({ type: "call", method: "terminalOpen" });
    expect(decodeLine(childMessageSchema, JSON.stringify({ type: "terminal", id: 3, event: { type: "opened", cwd: "/w", sandboxed: true } }))).toEqual({
      type: "terminal",
      id: 3,
      event: { type: "opened", cwd: "/w", sandboxed: true },
    });
    expect(decodeLine(childMessageSchema, JSON.stringify({ type: "terminal", id: 3, event: { type: "output", data: "hi\r\n" } }))).toMatchObject({
      event: { data: "hi\r\n" },
    });
    // An unknown event kind, a missing field or a stray key is not a message.
    expect(decodeLine(childMessageSchema, JSON.stringify({ type: "terminal", id: 3, event: { type: "bell" } }))).toBeUndefined();
    expect(decodeLine(childMessageSchema, JSON.stringify({ type: "terminal", id: 3, event: { type: "output" } }))).toBeUndefined();
    expect(decodeLine(childMessageSchema, JSON.stringify({ type: "terminal", event: { type: "output", data: "x" } }))).toBeUndefined();
    expect(decodeLine(childMessageSchema, JSON.stringify({ type: "terminal", id: 3, event: { type: "output", data: "x", extra: 1 } }))).toBeUndefined();
  });

  it("accepts well-formed params for each terminal call", () => {
    expect(parseTerminalParams("terminalOpen", { terminalId: "a_B-9", cols: 2, rows: 1, cwd: "src" })).toEqual({
      terminalId: "a_B-9",
      cols: 2,
      rows: 1,
      cwd: "src",
    });
    expect(parseTerminalParams("terminalInput", { terminalId: "t", data: "echo hi\r" })).toEqual({ terminalId: "t", data: "echo hi\r" });
    expect(parseTerminalParams("terminalResize", { terminalId: "t", cols: 1000, rows: 500 })).toEqual({ terminalId: "t", cols: 1000, rows: 500 });
    expect(parseTerminalParams("terminalAck", { terminalId: "t", chars: 32_768 })).toEqual({ terminalId: "t", chars: 32_768 });
    expect(terminalMethodSchemas.terminalOpen.result.parse({ exitCode: 0, signal: null })).toEqual({ exitCode: 0, signal: null });
  });

  it.each([
    ["terminalOpen", { terminalId: "t", cols: 1, rows: 24 }, /terminalOpen.*cols/],
    ["terminalOpen", { terminalId: "t", cols: 80, rows: 501 }, /terminalOpen.*rows/],
    ["terminalOpen", { terminalId: "t", cols: 80.5, rows: 24 }, /cols/],
    ["terminalOpen", { terminalId: "../x", cols: 80, rows: 24 }, /terminal id is 1 to 64 letters/],
    ["terminalOpen", { terminalId: "t", cols: 80, rows: 24, cwd: "" }, /cwd/],
    ["terminalOpen", { terminalId: "t", cols: 80, rows: 24, shell: "/bin/sh" }, /shell/],
    ["terminalInput", { terminalId: "t", data: "x".repeat(100_001) }, /data/],
    ["terminalInput", { terminalId: "t" }, /data/],
    ["terminalResize", { terminalId: "t", cols: 0, rows: 0 }, /cols.*rows|rows.*cols/s],
    ["terminalAck", { terminalId: "t", chars: 0 }, /chars/],
    ["terminalAck", { terminalId: "t", chars: -5 }, /chars/],
  ] as const)("refuses bad %s params with a clear invalid_request error (%j)", (method, params, pattern) => {
    let thrown: unknown;
    try {
      parseTerminalParams(method, params);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({
      name: "WorkspaceError",
      code: "invalid_request",
      message: expect.stringMatching(new RegExp(`^Invalid ${method} request: `)),
    });
    expect((thrown as Error).message).toMatch(pattern);
    expect((thrown as Error).message).not.toContain("\n");
  });
});
