import { z } from "zod";
import { toolInputSchema } from "../input-schema.ts";
import { GENERAL_PURPOSE_AGENT_TYPE, generalPurposeAgent, type AgentDefinition } from "../../agents/definition.ts";
import { type BackgroundAgents, backgroundAgentsOf, type BackgroundAgentOutcome } from "../../agents/background-agents.ts";
import { subagentServiceOf, type SubagentProgress, type SubagentRunResult } from "../../agents/service.ts";
import { subagentFailed } from "../../agents/subagent-service.ts";
import type { UsageTotals } from "../../schema/usage.ts";
import type { Tool, ToolProgress, ToolResult } from "../tool.ts";
import { toolFailure, type ToolFailureOutput } from "./tool-failure.ts";

export const agentInputSchema = toolInputSchema("Agent", () =>
  z.strictObject({
    description: z.string().describe("A short (3-5 word) description of the task"),
    prompt: z.string().describe("The task for the agent to perform"),
    subagent_type: z.string().optional().describe(`The type of specialized agent to use for this task (default: ${GENERAL_PURPOSE_AGENT_TYPE})`),
    model: z
      .string()
      .min(1)
      .optional()
      .describe("Optional model for this agent: sonnet, opus, haiku, or inherit (the default: the agent definition's model, else yours)."),
    run_in_background: z
      .boolean()
      .optional()
      .describe("Set to true to run this agent in the background. You get its id at once and are notified with its result when it finishes."),
  }),
);
export type AgentInput = z.infer<typeof agentInputSchema>;

/** The result of a background launch: the agent runs on; a `<task-notification>` brings its answer later. */
export type AgentLaunchOutput = { status: "async_launched"; agentId: string; description: string; prompt: string };

/** Claude Code's `toolUseResult` for an Agent call. */
export type AgentOutput = {
  status: "completed" | "failed" | "max_turns" | "interrupted";
  agentId: string;
  agentType: string;
  prompt: string;
  content: Array<{ type: "text"; text: string }>;
  totalDurationMs: number;
  totalTokens: number;
  totalToolUseCount: number;
  usage: UsageTotals;
  stopReason: string;
};

function describeAgents(definitions: readonly AgentDefinition[]): string {
  return definitions
    .map((definition) => `- ${definition.agentType}: ${definition.description} (Tools: ${definition.tools ? definition.tools.join(", ") : "*"})`)
    .join("\n");
}

function description(definitions: readonly AgentDefinition[]): string {
  return `Launch a new agent to handle complex, multi-step tasks autonomously. The agent works in its own context with its own tools and returns a single final report.

Available agent types and the tools they have access to:
${describeAgents(definitions)}

When using the Agent tool, you may specify a subagent_type to select which agent type to use (default: ${GENERAL_PURPOSE_AGENT_TYPE}).

Usage notes:
- Launch several agents concurrently whenever possible, to maximise performance: send one message with several Agent tool uses.
- The agent's final message is returned to you; it is not visible to the user. Summarise what matters for the user yourself.
- Each invocation is stateless: the agent sees only your prompt, not this conversation. Write a detailed, self-contained task description and say exactly what information the agent should return.
- Say whether the agent should write code or only research (search, read files); it does not know the user's intent.
- Trust the agent's output in general, but verify claims that matter.
- With run_in_background: true the call returns at once with the agent's id and you can keep working; when the agent finishes you receive a <task-notification> message with its result. Do not poll for it.
- model picks the agent's model (sonnet, opus, haiku, or inherit).`;
}

function tokensOf(usage: UsageTotals): number {
  return usage.inputTokens + usage.outputTokens + usage.cacheReadInputTokens + usage.cacheCreationInputTokens;
}

function statusOf(run: SubagentRunResult): AgentOutput["status"] {
  if (subagentFailed(run.terminal)) return "failed";
  if (run.terminal.reason === "max_turns") return "max_turns";
  if (run.terminal.reason.startsWith("aborted")) return "interrupted";
  return "completed";
}

/**
 * The Agent tool (`Task` in older Claude Code): runs a subagent through `services.subagents` and
 * streams its events as progress. Concurrency-safe, so parallel Agent calls run at once. It needs
 * no permission of its own: every tool call the subagent makes goes through the same gate.
 */
export function createAgentTool(
  options: { definitions?: readonly AgentDefinition[] } = {},
): Tool<AgentInput, AgentOutput | AgentLaunchOutput | ToolFailureOutput> {
  const definitions = options.definitions ?? [generalPurposeAgent];
  return {
    name: "Agent",
    aliases: ["Task"],
    inputSchema: agentInputSchema,
    description: description(definitions),
    isReadOnly: () => true,
    isConcurrencySafe: () => true,
    async validateInput(input, context) {
      const known = subagentServiceOf(context)?.definitions() ?? definitions;
      const type = input.subagent_type ?? GENERAL_PURPOSE_AGENT_TYPE;
      if (known.some((definition) => definition.agentType === type)) return { ok: true };
      return {
        ok: false,
        code: "unknown_agent_type",
        message: `Agent type '${type}' not found. Available agents: ${known.map((definition) => definition.agentType).join(", ")}`,
      };
    },
    async *call(input, context, meta): AsyncGenerator<ToolProgress, ToolResult<AgentOutput | AgentLaunchOutput | ToolFailureOutput>, void> {
      const service = subagentServiceOf(context);
      if (!service) return toolFailure("Subagents are not available in this session.");
      const background = input.run_in_background === true ? backgroundAgentsOf(context) : undefined;
      if (input.run_in_background === true && !background)
        return toolFailure("Background agents are not available in this session; run the agent without run_in_background.");
      const run = service.run({
        description: input.description,
        prompt: input.prompt,
        ...(input.subagent_type ? { subagentType: input.subagent_type } : {}),
        ...(input.model ? { model: input.model } : {}),
        ...(background ? { background: true } : {}),
        parentContext: context,
        toolUseId: meta.toolUseId,
      });
      if (background) return launchInBackground(run, background, input);
      let result: SubagentRunResult | undefined;
      try {
        while (true) {
          const step = await run.next();
          if (step.done) {
            result = step.value;
            break;
          }
          yield { data: step.value };
        }
      } finally {
        if (!result) await run.return(undefined as never).catch(() => undefined);
      }
      const status = statusOf(result);
      const text = result.text || "(The agent finished without a final message.)";
      const output: AgentOutput = {
        status,
        agentId: result.agentId,
        agentType: result.agentType,
        prompt: input.prompt,
        content: [{ type: "text", text }],
        totalDurationMs: result.durationMs,
        totalTokens: tokensOf(result.usage),
        totalToolUseCount: result.toolUseCount,
        usage: result.usage,
        stopReason: result.terminal.reason,
      };
      if (status === "failed") {
        const reason = result.terminal.error?.message ?? result.terminal.reason;
        return { output, content: `The agent stopped with an error: ${reason}${result.text ? `\n\nIts last message:\n${result.text}` : ""}`, isError: true };
      }
      if (status === "max_turns") return { output, content: `${text}\n\n(The agent reached its turn limit before finishing.)` };
      return { output, content: text };
    },
  };
}

/**
 * Starts the run and returns as soon as it has an id (its first event); the rest runs detached and
 * ends as a notification in `background`.
 */
async function launchInBackground(
  run: AsyncGenerator<SubagentProgress, SubagentRunResult, void>,
  background: BackgroundAgents,
  input: AgentInput,
): Promise<ToolResult<AgentLaunchOutput | ToolFailureOutput>> {
  const first = await run.next();
  if (first.done) return toolFailure(`The agent ended before it started: ${first.value.terminal.error?.message ?? first.value.terminal.reason}`);
  const agentId = first.value.agentId;
  const finished = (async (): Promise<BackgroundAgentOutcome> => {
    while (true) {
      const step = await run.next();
      if (!step.done) continue;
      const status = statusOf(step.value);
      if (status === "failed") return { status: "failed", text: step.value.terminal.error?.message ?? step.value.terminal.reason };
      if (status === "interrupted") return { status: "killed", text: step.value.text };
      return { status: "completed", text: step.value.text };
    }
  })();
  background.launch(agentId, input.description, finished);
  const output: AgentLaunchOutput = { status: "async_launched", agentId, description: input.description, prompt: input.prompt };
  return {
    output,
    content: `Async agent launched successfully.\nagentId: ${agentId}\nThe agent is working in the background. You will be notified automatically when it completes; do not poll for it. Continue with other work or end your turn.`,
  };
}
