import { describe, expect, it } from "vitest";
import type { ToolUseBlock } from "../schema/content.ts";
import { createTestTool } from "../testing/index.ts";
import { partitionToolCalls } from "./partition.ts";

const read = createTestTool({ name: "Read", safe: true });
const write = createTestTool({ name: "Write", safe: false });
const throwing = {
  ...read,
  name: "Weird",
  isConcurrencySafe: () => {
    throw new Error("nope");
  },
};
const block = (id: string, name: string, input: unknown = { value: id }): ToolUseBlock => ({ type: "tool_use", id, name, input });

describe("partitionToolCalls", () => {
  it("groups consecutive safe calls and isolates every other call", () => {
    const batches = partitionToolCalls(
      [read, write, throwing],
      [
        block("r1", "Read"),
        block("r2", "Read"),
        block("w1", "Write"),
        block("r3", "Read"),
        block("x", "Weird"),
        block("bad", "Read", { value: 1 }),
        block("u", "Unknown"),
        block("r4", "Read"),
      ],
    );
    expect(batches.map((batch) => [batch.isConcurrencySafe, batch.blocks.map((b) => b.id)])).toEqual([
      [true, ["r1", "r2"]],
      [false, ["w1"]],
      [true, ["r3"]],
      [false, ["x"]],
      [false, ["bad"]],
      [false, ["u"]],
      [true, ["r4"]],
    ]);
  });
});
