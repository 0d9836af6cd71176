import { describe, expect, it } from "vitest";
import { warmUpTimelinePaths } from "./timeline-warm-up.ts";

describe("warmUpTimelinePaths", () => {
  it("runs a made-up session through the parse, build and compact of a first look: every line kept, events built", () => {
    const warmed = warmUpTimelinePaths();
    expect(warmed.malformedLines).toBe(0);
    expect(warmed.events).toBeGreaterThan(100);
  });
});
