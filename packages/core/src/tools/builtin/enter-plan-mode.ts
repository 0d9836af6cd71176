import { z } from "zod";
import { toolInputSchema } from "../input-schema.ts";
import type { Tool } from "../tool.ts";

export const enterPlanModeInputSchema = toolInputSchema("EnterPlanMode", () => z.strictObject({}));
export type EnterPlanModeInput = z.infer<typeof enterPlanModeInputSchema>;
export type EnterPlanModeOutput = { message: string };

export const enteredPlanModeMessage = `Entered plan mode. Explore the codebase and design an implementation approach before changing anything:
1. Read the code involved and the patterns it already follows.
2. Weigh the options and pick one, with its trade-offs.
3. When the plan is ready, call ExitPlanMode with it; the user approves it or asks you to keep planning.
Do not write or edit files, and run only read-only commands, until the plan is approved.`;

const description = `Use this tool when a task is large or ambiguous enough that it should be planned before any code changes: several files, an architectural choice, or unclear requirements. It asks the user to switch the session to plan mode, where only read-only tools run until you present a plan with ExitPlanMode.
Do not use it for small, clear tasks (a typo, a one-line fix) or for pure research questions.`;

/**
 * Asks to enter plan mode. The call needs the user's approval like any tool that changes the
 * session (the engine asks in default and acceptEdits mode); once approved it switches to plan mode.
 */
export function createEnterPlanModeTool(): Tool<EnterPlanModeInput, EnterPlanModeOutput> {
  return {
    name: "EnterPlanMode",
    inputSchema: enterPlanModeInputSchema,
    description,
    maxResultChars: 2_000,
    isReadOnly: () => false,
    isConcurrencySafe: () => false,
    async validateInput(_input, context) {
      if (context.agentId) return { ok: false, code: "subagent", message: "Subagents cannot enter plan mode." };
      if (context.getAppState().permissionMode !== "plan") return { ok: true };
      return { ok: false, code: "already_in_plan_mode", message: "You are already in plan mode. Present your plan with ExitPlanMode when it is ready." };
    },
    async call(_input, context) {
      context.setAppState((state) => (state.permissionMode === "plan" ? state : { ...state, permissionMode: "plan" }));
      return { output: { message: enteredPlanModeMessage } };
    },
    renderResult: (output) => output.message,
    rejectionMessage: (feedback) =>
      `The user declined to enter plan mode; go on with the task in the current mode.${feedback ? `\nThe user said: ${feedback}` : ""}`,
  };
}
