import { describe, expect, it } from "vitest";
import { COMPACTOR_SETTING_KEYS, compactorSettingsSchema, parseCompactorSettings } from "./compactor-options.ts";

describe("parseCompactorSettings", () => {
  it("without any setting gives exactly what the schema gives for nothing (the defaults, taken without building it)", () => {
    expect(parseCompactorSettings({ retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 2 } as never, uuid: () => "u" })).toEqual(
      compactorSettingsSchema().parse({}),
    );
  });

  it("names every setting the schema has, so a setting given always goes through the schema", () => {
    expect([...COMPACTOR_SETTING_KEYS].sort()).toEqual(Object.keys(compactorSettingsSchema().shape).sort());
  });

  it("hands each compactor its own copy of the defaults", () => {
    const first = parseCompactorSettings({});
    const microcompact = first.microcompact;
    if (microcompact === false) throw new Error("micro-compact is on by default");
    microcompact.tools.push("Extra");
    first.keep.turns = 99;
    const second = parseCompactorSettings({});
    expect(second.keep.turns).toBe(3);
    expect(second.microcompact === false ? [] : second.microcompact.tools).not.toContain("Extra");
  });

  it("validates any setting given, and fills in the rest", () => {
    expect(() => parseCompactorSettings({ keep: { turns: -1 } })).toThrow(/keep\.turns/);
    expect(() => parseCompactorSettings({ autoCompactPct: 0 })).toThrow(/autoCompactPct/);
    const settings = parseCompactorSettings({ autoCompact: false, contextWindow: 50_000 });
    expect(settings).toEqual({ ...parseCompactorSettings({}), autoCompact: false, contextWindow: 50_000 });
  });
});
