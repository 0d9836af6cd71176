import { z } from "zod";
import { toolInputSchema } from "../input-schema.ts";
import type { Tool } from "../tool.ts";

export const exitPlanModeInputSchema = toolInputSchema("ExitPlanMode", () =>
  z.strictObject({
    plan: z
      .string()
      .min(1)
      .max(100_000)
      .describe("The plan you came up with, that you want to run by the user for approval. Supports markdown. The plan should be pretty concise."),
  }),
);
export type ExitPlanModeInput = z.infer<typeof exitPlanModeInputSchema>;
export type ExitPlanModeOutput = { plan: string; approved: true };

export const exitPlanModeApproved = "User has approved your plan. You can now start coding. Start with updating your todo list if applicable.";

const description = `Use this tool when you are in plan mode and have finished presenting your plan and are ready to code. This will prompt the user to exit plan mode.
IMPORTANT: Only use this tool when the task requires planning the implementation steps of a task that requires writing code. For research tasks where you're gathering information, searching files, reading files or in general trying to understand the codebase - do NOT use this tool.

Eg.
1. Initial task: "Search for and understand the implementation of vim mode in the codebase" - Do not use the exit plan mode tool because you are not planning the implementation steps of a task.
2. Initial task: "Help me implement yank mode for vim" - Use the exit plan mode tool after you have finished planning the implementation steps of the task.`;

/**
 * Leaves plan mode once the user approves the plan. The permission engine asks for every call made in
 * plan mode (the user's answer is the approval, and may pick acceptEdits as the next mode); the call
 * itself switches a session still in plan mode to default mode, which the UI sees as a state change.
 */
export function createExitPlanModeTool(): Tool<ExitPlanModeInput, ExitPlanModeOutput> {
  return {
    name: "ExitPlanMode",
    inputSchema: exitPlanModeInputSchema,
    description,
    maxResultChars: 2_000,
    // Not read-only: plan mode admits read-only calls without asking, and this one must be approved.
    isReadOnly: () => false,
    isConcurrencySafe: () => false,
    async validateInput(_input, context) {
      if (context.getAppState().permissionMode === "plan") return { ok: true };
      return {
        ok: false,
        code: "not_in_plan_mode",
        message: "You are not in plan mode. ExitPlanMode is only for presenting a plan for approval while in plan mode; go ahead with the task.",
      };
    },
    async call(input, context) {
      context.setAppState((state) => (state.permissionMode === "plan" ? { ...state, permissionMode: "default" } : state));
      return { output: { plan: input.plan, approved: true } };
    },
    renderResult: () => exitPlanModeApproved,
    // "Keep planning": the user's comments on the plan go back to the model, which stays in plan mode.
    rejectionMessage: (feedback) =>
      `The user did not approve the plan yet and wants you to keep planning (you are still in plan mode).${feedback ? `\nTheir comments on the plan:\n${feedback}` : ""}\nRevise the plan, then call ExitPlanMode again.`,
  };
}
