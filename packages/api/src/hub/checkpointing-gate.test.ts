import { describe, expect, it } from "vitest";
import type { PermissionCheckArgs, PermissionGate } from "@cairn/core";
import { checkpointingGate } from "./checkpointing-gate.ts";

function callOf(readOnly: boolean): PermissionCheckArgs {
  return { tool: { name: readOnly ? "Read" : "Write", isReadOnly: () => readOnly }, input: {}, toolUseId: "t" } as unknown as PermissionCheckArgs;
}

describe("checkpointingGate", () => {
  it("takes the checkpoint before a call that may change files, never for reads or denials", async () => {
    const order: string[] = [];
    let behavior: "allow" | "deny" | "ask" = "allow";
    const inner: PermissionGate = {
      async check() {
        order.push(`check:${behavior}`);
        if (behavior === "deny") return { behavior, reason: { type: "default", reason: "test" }, message: "no" };
        return { behavior, reason: { type: "default", reason: "test" } };
      },
    };
    const gate = checkpointingGate(inner, async () => {
      order.push("checkpoint");
    });
    await gate.check(callOf(true));
    behavior = "deny";
    await gate.check(callOf(false));
    behavior = "ask";
    expect((await gate.check(callOf(false))).behavior).toBe("ask");
    expect(order).toEqual(["check:allow", "check:deny", "check:ask", "checkpoint"]);
  });
});
