import { describe, expect, test } from "vitest";
import { nodeShellWasmLoader } from "../../node/shell-parser.ts";
import { createShellParser, ShellParserError } from "./shell-parser.ts";

describe("createShellParser", () => {
  test("a grammar that is not wasm fails with a typed error", async () => {
    const loader = { loadRuntime: nodeShellWasmLoader.loadRuntime, loadLanguage: async () => new TextEncoder().encode("not wasm") };
    const error = await createShellParser(loader).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ShellParserError);
    expect(error).toMatchObject({ code: "shell_parser_unavailable" });
  });

  test("a disposed parser refuses further work; the LRU cache keeps recent commands", async () => {
    const parser = await createShellParser(nodeShellWasmLoader, { cacheSize: 2 });
    const first = parser.analyze("ls a");
    parser.analyze("ls b");
    expect(parser.analyze("ls a")).toBe(first);
    parser.analyze("ls c");
    parser.analyze("ls d");
    expect(parser.analyze("ls a")).not.toBe(first);
    expect(parser.analyze("ls a")).toEqual(first);
    parser.dispose();
    expect(() => parser.analyze("ls")).toThrow(ShellParserError);
  });
});
