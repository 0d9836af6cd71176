import { describe, expect, it } from "vitest";
import { absoluteShareUrl, describeRedactions, formatWhen } from "./share-format.ts";

describe("absoluteShareUrl", () => {
  it("joins the page origin and the server's path", () => {
    expect(absoluteShareUrl("http://127.0.0.1:3000", "/share/abc_DEF-1")).toBe("http://127.0.0.1:3000/share/abc_DEF-1");
    expect(absoluteShareUrl("https://cairn.example/", "/share/t")).toBe("https://cairn.example/share/t");
  });

  it("keeps an absolute URL from the server as it is", () => {
    expect(absoluteShareUrl("http://127.0.0.1:3000", "https://proxy.example/share/t")).toBe("https://proxy.example/share/t");
  });
});

describe("describeRedactions", () => {
  it("counts the secrets by kind and skips kinds with none", () => {
    expect(
      describeRedactions([
        { kind: "anthropic-api-key", count: 2 },
        { kind: "aws-key", count: 0 },
        { kind: "private-key", count: 1 },
      ]),
    ).toBe("3 secrets will be replaced: 2 × anthropic-api-key, 1 × private-key.");
  });

  it("says so when there is nothing to redact", () => {
    expect(describeRedactions([])).toBe("No secrets were found.");
    expect(describeRedactions([{ kind: "aws-key", count: 0 }])).toBe("No secrets were found.");
  });
});

describe("formatWhen", () => {
  it("uses the given word for a missing date and echoes what it cannot parse", () => {
    expect(formatWhen(null)).toBe("never");
    expect(formatWhen(undefined, "not yet")).toBe("not yet");
    expect(formatWhen("not a date")).toBe("not a date");
  });
});
