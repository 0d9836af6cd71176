import { z } from "zod";
import { agentEventSchema, type AgentEvent } from "@cairn/core/schema";
import type { SubagentStepView, SubagentView, ToolCallView } from "./chat-types.ts";
import { toolSummary } from "./describe.ts";

/** What the Agent tool sends as `tool-progress` data: one event of the subagent it runs. */
const subagentProgressSchema = z.object({
  type: z.literal("subagent"),
  agentId: z.string(),
  agentType: z.string(),
  description: z.string(),
  event: agentEventSchema,
});

/**
 * Folds one `tool-progress` payload of an Agent call into its card: the subagent's tool calls as they
 * start and end, its latest text, and whether it has finished. Returns undefined when the payload is
 * not a subagent's (other tools' progress is shown as text).
 */
export function applySubagentProgress(call: ToolCallView, data: unknown): ToolCallView | undefined {
  if (typeof data !== "object" || data === null || (data as { type?: unknown }).type !== "subagent") return undefined;
  const parsed = subagentProgressSchema.safeParse(data);
  if (!parsed.success) return undefined;
  const { agentId, agentType, description, event } = parsed.data;
  const current: SubagentView = call.subagent?.agentId === agentId ? call.subagent : { agentId, agentType, description, steps: [], text: "", done: false };
  return { ...call, subagent: reduceSubagent(current, event) };
}

function reduceSubagent(view: SubagentView, event: AgentEvent): SubagentView {
  switch (event.type) {
    case "message": {
      const message = event.message;
      if (message.type !== "assistant") return view;
      let next = view;
      const texts: string[] = [];
      for (const block of message.message.content) {
        if (block.type === "text") texts.push(block.text);
        if (block.type === "tool_use") next = upsertStep(next, block.id, block.name, (step) => step, block.input);
      }
      const text = texts.join("\n").trim();
      return text ? { ...next, text } : next;
    }
    case "tool-start":
      return upsertStep(view, event.toolUseId, event.name, (step) => ({ ...step, status: step.status === "pending" ? "running" : step.status }), event.input);
    case "tool-end":
      return upsertStep(view, event.record.toolUseId, event.record.name, (step) => ({
        ...step,
        status: event.record.isError ? "error" : "completed",
        durationMs: event.record.durationMs,
      }));
    case "result":
      return {
        ...view,
        done: true,
        reason: event.terminal.reason,
        // A call that never reported back did not finish.
        steps: view.steps.map((step) => (step.status === "pending" || step.status === "running" ? { ...step, status: "error" } : step)),
      };
    default:
      return view;
  }
}

function upsertStep(view: SubagentView, toolUseId: string, name: string, update: (step: SubagentStepView) => SubagentStepView, input?: unknown): SubagentView {
  const index = view.steps.findIndex((step) => step.toolUseId === toolUseId);
  const existing = view.steps[index];
  const base: SubagentStepView = existing ?? { toolUseId, name, summary: "", status: "pending" };
  const summary = base.summary || (input === undefined ? "" : toolSummary(name, input));
  const step = update({ ...base, summary });
  return { ...view, steps: index === -1 ? [...view.steps, step] : view.steps.with(index, step) };
}
