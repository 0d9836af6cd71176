import type { PermissionGate } from "@cairn/core";

/**
 * The session's permission gate, plus a checkpoint before the first call that may change files:
 * every call passes `check` before it runs, so a tool that is not read-only for its input waits
 * until `checkpoint` (taken once per prompt) is done. Denied calls change nothing and take none.
 */
export function checkpointingGate(gate: PermissionGate, checkpoint: () => Promise<void>): PermissionGate {
  return {
    async check(args) {
      const decision = await gate.check(args);
      if (decision.behavior !== "deny" && !args.tool.isReadOnly(args.input)) await checkpoint();
      return decision;
    },
    ...(gate.recordAnswer ? { recordAnswer: (args, answer, suggestions) => gate.recordAnswer!(args, answer, suggestions) } : {}),
    ...(gate.recordDenial ? { recordDenial: (args, reason) => gate.recordDenial!(args, reason) } : {}),
  };
}
