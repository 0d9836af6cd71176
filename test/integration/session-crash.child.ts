// Child process for session-crash.test.ts: appends a conversation to a session until it is killed.
// Prints "READY" once the transcript is open and "ACK <uuid>" after each user prompt's append resolved.
import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { createJsonlTranscriptStore, loadTranscript, sessionTranscriptPath } from "@cairn/core/node";
import type { ContentBlock, ConversationMessage } from "@cairn/core/schema";

const [cairnHome, cwd, sessionId, seedText] = process.argv.slice(2);
if (!cairnHome || !cwd || !sessionId || !seedText) throw new Error("usage: session-crash.child.ts <cairnHome> <cwd> <sessionId> <seed>");

let seed = Number(seedText);
const random = (): number => {
  seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
  return seed / 2 ** 32;
};
const now = () => new Date().toISOString();

const path = sessionTranscriptPath({ cairnHome, cwd, sessionId });
const earlier = existsSync(path) ? await loadTranscript(path) : undefined;
let parent: string | null = earlier?.messages.at(-1)?.uuid ?? null;
const store = createJsonlTranscriptStore({ cairnHome, cwd, sessionId, version: "crash-test", fsync: "user-messages" });

const append = async (message: ConversationMessage): Promise<void> => {
  await store.appendMessage(message);
  parent = message.uuid;
};

await store.flush();
process.stdout.write("READY\n");
for (let turn = 0; ; turn++) {
  const promptUuid = randomUUID();
  await append({ type: "user", uuid: promptUuid, parentUuid: parent, timestamp: now(), message: { role: "user", content: `prompt ${turn}` } });
  process.stdout.write(`ACK ${promptUuid}\n`);

  const toolIds = Array.from({ length: 1 + Math.floor(random() * 3) }, () => `toolu_${randomUUID().replaceAll("-", "")}`);
  const responseUuid = randomUUID();
  const content: ContentBlock[] = [
    { type: "text", text: "x".repeat(Math.floor(random() * 64_000)) },
    ...toolIds.map((id): ContentBlock => ({ type: "tool_use", id, name: "Read", input: { file_path: `/w/${id}` } })),
  ];
  const responseId = `msg_${randomUUID()}`;
  const response: ConversationMessage = {
    type: "assistant",
    uuid: responseUuid,
    parentUuid: parent,
    timestamp: now(),
    message: { id: responseId, role: "assistant", model: "m", content, stop_reason: "tool_use" },
  };
  if (random() < 0.15) {
    // A response discarded by a failed stream: written, then tombstoned; the next one replaces it.
    await store.appendMessage(response);
    await store.appendTombstone(responseUuid, "stream failed");
    response.uuid = randomUUID();
  }
  await append(response);
  for (const id of toolIds) {
    await append({
      type: "user",
      uuid: randomUUID(),
      parentUuid: parent,
      timestamp: now(),
      message: { role: "user", content: [{ type: "tool_result", tool_use_id: id, content: "y".repeat(Math.floor(random() * 16_000)) }] },
    });
  }
  await append({
    type: "assistant",
    uuid: randomUUID(),
    parentUuid: parent,
    timestamp: now(),
    message: { id: `msg_${randomUUID()}`, role: "assistant", model: "m", content: [{ type: "text", text: `done ${turn}` }], stop_reason: "end_turn" },
  });
}
