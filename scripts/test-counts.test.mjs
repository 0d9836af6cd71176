import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { countTests } from "./test-counts.mjs";

describe("countTests", () => {
  it("reads vitest summaries, with turbo's prefix, including skipped and todo", () => {
    const text = [
      "@cairn/core:test:  Test Files  2 passed (2)",
      "@cairn/core:test:       Tests  12 passed (12)",
      "@cairn/worker:test:       Tests  1 failed | 7 passed | 2 skipped | 3 todo (13)",
      "@cairn/worker:test:  ✓ src/a.test.ts (8 tests | 7 skipped) 5557ms",
    ].join("\n");
    assert.deepEqual(countTests(text), { passed: 19, failed: 1, skipped: 2, todo: 3 });
  });

  it("reads Playwright's summary: passed, failed, skipped and tests that did not run", () => {
    const text = [
      "@cairn/test:e2e:   2 failed",
      "@cairn/test:e2e:   1 skipped",
      "@cairn/test:e2e:   4 did not run",
      "@cairn/test:e2e:   12 passed (41.2s)",
    ].join("\n");
    assert.deepEqual(countTests(text), { passed: 12, failed: 2, skipped: 5, todo: 0 });
  });

  it("reads node:test's totals", () => {
    assert.deepEqual(countTests("# tests 6\n# pass 4\n# fail 1\n# skipped 0\n# todo 1\n"), { passed: 4, failed: 1, skipped: 0, todo: 1 });
  });
});
