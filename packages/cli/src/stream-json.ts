import { estimateCostUsd, type AgentEvent } from "@cairn/core";

/** One line of `--output-format stream-json`, in Claude Code's shapes (snake_case, `session_id` on every line). */
export type StreamJsonLine = Record<string, unknown> & { type: string };

export function initLine(options: {
  sessionId: string;
  cwd: string;
  tools: string[];
  model: string;
  permissionMode: string;
  demo: boolean;
  mcpServers: Array<{ name: string; status: string }>;
}): StreamJsonLine {
  return {
    type: "system",
    subtype: "init",
    cwd: options.cwd,
    session_id: options.sessionId,
    tools: options.tools,
    mcp_servers: options.mcpServers,
    model: options.model,
    permissionMode: options.permissionMode,
    apiKeySource: options.demo ? "none" : "ANTHROPIC_API_KEY",
    cairn_demo_model: options.demo,
  };
}

export function eventToLine(event: AgentEvent, sessionId: string): StreamJsonLine | null {
  switch (event.type) {
    case "message": {
      const message = event.message;
      if (message.type === "assistant") {
        return { type: "assistant", message: message.message, parent_tool_use_id: null, session_id: sessionId, uuid: message.uuid };
      }
      if (message.type === "user") {
        return {
          type: "user",
          message: message.message,
          parent_tool_use_id: null,
          session_id: sessionId,
          uuid: message.uuid,
          ...(message.toolUseResult !== undefined ? { tool_use_result: message.toolUseResult } : {}),
        };
      }
      return { type: "system", subtype: message.subtype, session_id: sessionId, uuid: message.uuid, content: message.content ?? "" };
    }
    case "retry":
      return {
        type: "system",
        subtype: "api_retry",
        attempt: event.attempt,
        max_retries: event.maxAttempts,
        retry_delay_ms: event.delayMs,
        error_status: event.status,
        error: event.errorCode,
        session_id: sessionId,
      };
    case "permission-decision":
      if (event.behavior !== "deny") return null;
      return {
        type: "system",
        subtype: "permission_denied",
        tool_name: event.toolName,
        tool_use_id: event.toolUseId,
        reason: event.reason,
        session_id: sessionId,
      };
    case "model-fallback":
      return { type: "system", subtype: "model_fallback", from: event.from, to: event.to, reason: event.reason, session_id: sessionId };
    case "notice":
      return { type: "system", subtype: "notice", level: event.level, code: event.code, message: event.message, session_id: sessionId };
    case "error":
      return { type: "system", subtype: "api_error", code: event.code, message: event.message, status: event.status, session_id: sessionId };
    case "compact-boundary":
      return {
        type: "system",
        subtype: "compact_boundary",
        compact_metadata: { trigger: event.trigger, pre_tokens: event.preTokens, post_tokens: event.postTokens },
        session_id: sessionId,
      };
    default:
      return null;
  }
}

export function resultLine(event: Extract<AgentEvent, { type: "result" }>, options: { sessionId: string; model: string; finalText: string }): StreamJsonLine {
  const reason = event.terminal.reason;
  const subtype = reason === "completed" ? "success" : reason === "max_turns" ? "error_max_turns" : "error_during_execution";
  return {
    type: "result",
    subtype,
    is_error: subtype !== "success",
    duration_ms: event.durationMs,
    duration_api_ms: event.durationApiMs,
    num_turns: event.numTurns,
    result: options.finalText,
    stop_reason: reason,
    session_id: options.sessionId,
    // Auto mode's classifier requests are priced by their own model and counted in the total.
    total_cost_usd: estimateCostUsd(options.model, event.usage) + (event.classifier?.costUsd ?? 0),
    usage: {
      input_tokens: event.usage.inputTokens,
      output_tokens: event.usage.outputTokens,
      cache_creation_input_tokens: event.usage.cacheCreationInputTokens,
      cache_read_input_tokens: event.usage.cacheReadInputTokens,
    },
    ...(event.classifier
      ? {
          classifier_usage: {
            requests: event.classifier.requests,
            input_tokens: event.classifier.usage.inputTokens,
            output_tokens: event.classifier.usage.outputTokens,
            cache_creation_input_tokens: event.classifier.usage.cacheCreationInputTokens,
            cache_read_input_tokens: event.classifier.usage.cacheReadInputTokens,
            cost_usd: event.classifier.costUsd,
          },
        }
      : {}),
    permission_denials: event.permissionDenials.map((denial) => ({ tool_name: denial.toolName, tool_use_id: denial.toolUseId, tool_input: denial.input })),
    ...(event.terminal.error ? { error: event.terminal.error } : {}),
    ...(event.tokenBudget
      ? {
          token_budget: {
            budget: event.tokenBudget.budget,
            used: event.tokenBudget.used,
            continuations: event.tokenBudget.continuations,
            ...(event.tokenBudget.stoppedBy ? { stopped_by: event.tokenBudget.stoppedBy } : {}),
          },
        }
      : {}),
  };
}
