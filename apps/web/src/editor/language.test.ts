import { describe, expect, it } from "vitest";
import { languageForPath } from "./language.ts";

describe("languageForPath", () => {
  it.each([
    ["/w/src/app.tsx", "typescript"],
    ["/w/lib/util.MJS", "javascript"],
    ["/w/package.json", "json"],
    ["/w/README.md", "markdown"],
    ["/w/main.py", "python"],
    ["/w/Dockerfile", "dockerfile"],
    ["/w/Makefile", "makefile"],
    ["/w/.github/ci.yml", "yaml"],
    ["/w/LICENSE", "plaintext"],
    ["/w/.hidden", "plaintext"],
    ["/w/data.unknownext", "plaintext"],
  ])("%s → %s", (path, language) => {
    expect(languageForPath(path)).toBe(language);
  });
});
