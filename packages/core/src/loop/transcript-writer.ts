import type { AgentEvent } from "../schema/events.ts";
import type { ConversationMessage } from "../schema/messages.ts";
import type { TranscriptSink } from "../session/port.ts";

/**
 * What a run writes as its events pass: each message appended to the transcript (and to `messages`,
 * the conversation so far), a tombstone recorded and its message dropped, hook runs recorded.
 */
export function transcriptWriter(sink: TranscriptSink | undefined, messages: ConversationMessage[]): (event: AgentEvent) => Promise<void> {
  return async (event) => {
    if (event.type === "message") {
      messages.push(event.message);
      await sink?.appendMessage(event.message);
    } else if (event.type === "tombstone" && event.uuid) {
      const uuid = event.uuid;
      await sink?.appendTombstone(uuid, event.reason);
      const index = messages.findIndex((message) => message.uuid === uuid);
      if (index >= 0) messages.splice(index, 1);
    } else if (event.type === "hook-runs") {
      await sink?.appendHookRuns(event.event, event.runs);
    }
  };
}
