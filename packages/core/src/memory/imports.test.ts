import { describe, expect, it } from "vitest";
import { findImports } from "./imports.ts";

describe("findImports", () => {
  it("finds @path imports in prose, lists and headings, in order and once each", async () => {
    const markdown =
      "# Rules @docs/rules.md\n\nSee @docs/conventions.md and @./local.md.\n\n- also @~/notes.md\n- and @/abs/file.md\n\nAgain @docs/conventions.md";
    expect(await findImports(markdown)).toEqual(["docs/rules.md", "docs/conventions.md", "./local.md", "~/notes.md", "/abs/file.md"]);
  });

  it("accepts ~/ paths and escaped spaces, and drops #fragments", async () => {
    expect(await findImports("Use @~/team/style.md and @docs/my\\ file.md#intro")).toEqual(["~/team/style.md", "docs/my file.md"]);
  });

  it("ignores an @ inside a code span or a fenced or indented code block", async () => {
    const markdown = "Run `npm i @scope/pkg` first.\n\n```sh\ncat @docs/secret.md\n```\n\n    @indented/code.md\n\nReal: @docs/real.md";
    expect(await findImports(markdown)).toEqual(["docs/real.md"]);
  });

  it("ignores e-mail addresses, decorators and things that are not paths", async () => {
    expect(await findImports("Mail me@example.com, use @@twice, @#tag or @ alone; decorators like x@Component.")).toEqual([]);
  });
});
