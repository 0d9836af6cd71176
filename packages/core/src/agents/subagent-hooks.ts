import { emptyHookOutcome, type HookDispatcher } from "../hooks/port.ts";

/**
 * The parent's hooks as a subagent sees them: its end fires `SubagentStop` (matched on the agent
 * type) instead of `Stop`, and its prompt, written by the parent model, fires no
 * `UserPromptSubmit`. Tool hooks fire as for the parent.
 */
export function subagentHooks(parent: HookDispatcher, agent: { agentId: string; agentType: string; transcriptPath: string | undefined }): HookDispatcher {
  return {
    dispatch(event, input, options) {
      if (event === "UserPromptSubmit") return Promise.resolve(emptyHookOutcome());
      if (event !== "Stop") return parent.dispatch(event, input, options);
      return parent.dispatch(
        "SubagentStop",
        {
          ...input,
          agent_id: agent.agentId,
          agent_type: agent.agentType,
          ...(agent.transcriptPath ? { agent_transcript_path: agent.transcriptPath } : {}),
        },
        { ...options, matchValue: agent.agentType },
      );
    },
  };
}
