import type { TranscriptLine } from "../schema/transcript.ts";
import type { TimelineSource } from "./types.ts";

export type SyntheticSourceOptions = {
  /** About how many timeline events the source should produce (model calls, tool calls, waits, hooks…). */
  events: number;
  /** Epoch ms of the first line. */
  startMs?: number;
  /** Subagent sidechains to add (each a few turns). */
  sidechains?: number;
};

const SESSION_ID = "synthetic-session";
const TOOLS = ["Read", "Grep", "Glob", "Bash", "Edit"] as const;

/**
 * A deterministic Cairn session of the requested size, for benchmarks and performance tests:
 * turns of one model call and one to three tool calls (parallel batches), some asking permission,
 * some with hooks, some failing, a compaction every few hundred turns.
 */
export function syntheticTimelineSource(options: SyntheticSourceOptions): TimelineSource {
  let clock = options.startMs ?? Date.parse("2026-11-01T09:00:00.000Z");
  let counter = 0;
  const id = (prefix: string) => `${prefix}-${(counter++).toString(36)}`;
  const stamp = () => new Date(clock).toISOString();

  const thread = (budget: number, agentId: string | null): { lines: TranscriptLine[]; produced: number } => {
    const lines: TranscriptLine[] = [];
    const sidechain = agentId === null ? {} : { isSidechain: true, agentId };
    let produced = 0;
    let parent: string | null = null;
    let turn = 0;
    const prompt = id("u");
    lines.push({
      type: "user",
      uuid: prompt,
      parentUuid: null,
      sessionId: SESSION_ID,
      timestamp: stamp(),
      message: { role: "user", content: "Work through the synthetic task list." },
      ...sidechain,
    } as TranscriptLine);
    parent = prompt;
    produced++;
    while (produced < budget) {
      turn++;
      const calls = 1 + (turn % 3);
      const startedAt = clock;
      const endedAt = startedAt + 400 + (turn % 7) * 90;
      const messageId = id("msg");
      const uuid = id("a");
      const toolUses = Array.from({ length: calls }, (_, call) => {
        const name = TOOLS[(turn + call) % TOOLS.length]!;
        return {
          type: "tool_use",
          id: id("toolu"),
          name,
          input: name === "Bash" ? { command: `echo step ${turn}` } : { file_path: `/ws/src/file-${turn % 97}.ts`, pattern: `needle${turn}` },
        };
      });
      lines.push({
        type: "assistant",
        uuid,
        parentUuid: parent,
        sessionId: SESSION_ID,
        timestamp: new Date(endedAt).toISOString(),
        message: {
          id: messageId,
          type: "message",
          role: "assistant",
          model: "claude-sonnet-4-5",
          content: [{ type: "text", text: `Turn ${turn}: looking at file-${turn % 97}.ts next.` }, ...toolUses],
          stop_reason: "tool_use",
          usage: {
            input_tokens: 1200 + turn,
            output_tokens: 80 + (turn % 50),
            cache_read_input_tokens: 9000,
            cache_creation_input_tokens: turn % 10 === 0 ? 2000 : 0,
          },
        },
        modelCall: { model: "claude-sonnet-4-5", startedAt, firstTokenAt: startedAt + 250, endedAt, attempts: turn % 40 === 0 ? 2 : 1 },
        ...sidechain,
      } as TranscriptLine);
      produced++;
      parent = uuid;
      clock = endedAt + 5;
      const batchStart = clock;
      let batchEnd = batchStart;
      toolUses.forEach((toolUse, call) => {
        const asks = toolUse.name === "Edit" || toolUse.name === "Bash";
        const waitMs = asks && turn % 2 === 0 ? 1500 : 0;
        const hooked = turn % 4 === 0;
        const callStart = batchStart + call;
        const callEnd = callStart + waitMs + 30 + ((turn * (call + 1)) % 200);
        batchEnd = Math.max(batchEnd, callEnd);
        const isError = turn % 23 === 0 && call === 0;
        const resultUuid = id("r");
        lines.push({
          type: "user",
          uuid: resultUuid,
          parentUuid: parent,
          sessionId: SESSION_ID,
          timestamp: new Date(callEnd).toISOString(),
          message: {
            role: "user",
            content: [
              {
                type: "tool_result",
                tool_use_id: toolUse.id,
                content: isError ? "Error: file not found" : `result of ${toolUse.name} in turn ${turn}`,
                ...(isError ? { is_error: true } : {}),
              },
            ],
          },
          toolCall: {
            toolUseId: toolUse.id,
            name: toolUse.name,
            startedAt: callStart,
            endedAt: callEnd,
            durationMs: callEnd - callStart,
            permissionWaitMs: waitMs,
            isError,
            batch: turn,
            ...(asks
              ? {
                  decision: {
                    behavior: "allow",
                    reason: waitMs > 0 ? { type: "user", scope: "once" } : { type: "mode", mode: "acceptEdits" },
                    waitedMs: waitMs,
                    asked: waitMs > 0,
                  },
                }
              : {}),
            ...(isError ? { errorClass: "FileNotFound" } : {}),
            ...(hooked ? { hooks: [{ event: "PreToolUse", name: "audit.sh", startedAt: callStart, endedAt: callStart + 8, outcome: "ok" }] } : {}),
          },
          ...sidechain,
        } as TranscriptLine);
        parent = resultUuid;
        produced += 1 + (waitMs > 0 ? 1 : 0) + (hooked ? 1 : 0);
      });
      clock = batchEnd + 10;
      if (agentId === null && turn % 400 === 0) {
        const boundary = id("c");
        lines.push({
          type: "system",
          subtype: "compact_boundary",
          uuid: boundary,
          parentUuid: null,
          logicalParentUuid: parent,
          sessionId: SESSION_ID,
          timestamp: stamp(),
          content: "Conversation compacted",
          compactMetadata: { trigger: "auto", preTokens: 150_000, postTokens: 12_000, summarizedUuids: [prompt, parent ?? prompt] },
        } as TranscriptLine);
        parent = boundary;
        produced++;
      }
    }
    return { lines, produced };
  };

  const sidechainCount = options.sidechains ?? 0;
  const main = thread(Math.max(1, options.events - sidechainCount * 20), null);
  const sidechains = Array.from({ length: sidechainCount }, (_, position) => {
    const agentId = `a${position.toString(16).padStart(16, "0")}`;
    return { agentId, description: `Synthetic helper ${position + 1}`, lines: thread(20, agentId).lines };
  });
  return { sessionId: SESSION_ID, title: `Synthetic session (${options.events} events)`, cwd: "/ws", imported: false, lines: main.lines, sidechains };
}
