import { describe, expect, it } from "vitest";
import { basename, dirname, joinPath, relativeTo, validName } from "./paths.ts";

describe("explorer paths", () => {
  it("splits and joins workspace paths", () => {
    expect(dirname("/w/src/a.ts")).toBe("/w/src");
    expect(dirname("/a.ts")).toBe("/");
    expect(basename("/w/src/a.ts")).toBe("a.ts");
    expect(joinPath("/w/src", "b.ts")).toBe("/w/src/b.ts");
    expect(joinPath("/", "b.ts")).toBe("/b.ts");
    expect(relativeTo("/w", "/w/src/a.ts")).toBe("src/a.ts");
    expect(relativeTo("/w", "/w")).toBe(".");
    expect(relativeTo("/w", "/other/a.ts")).toBe("/other/a.ts");
  });

  it("accepts one path segment as a new name, and nothing that could climb out", () => {
    expect(validName("notes.md")).toBeNull();
    expect(validName("  ")).toMatch(/Enter a name/);
    expect(validName("..")).toMatch(/reserved/);
    expect(validName("a/b")).toMatch(/slash/);
    expect(validName("a\\b")).toMatch(/slash/);
  });
});
