import assert from "node:assert/strict";
import { test } from "node:test";
import { describeLeftovers } from "./temp-leftovers.mjs";

test("groups leftovers by name without mkdtemp's random tail, most first", () => {
  assert.equal(
    describeLeftovers(["cairn-otel-ws-a1B2c3", "model-sim-cli-XyZ123", "cairn-otel-ws-Zz9y8x", "srt-mux-1234-0.sock"]),
    "2 cairn-otel-ws, 1 model-sim-cli, 1 srt-mux-1234-0.sock",
  );
  assert.equal(describeLeftovers([]), "");
});
