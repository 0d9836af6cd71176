import { randomUUID } from "node:crypto";
import { manualCompaction, type ConversationMessage } from "@cairn/core";
import type { Runtime, SessionWiring } from "@cairn/api/runtime";
import type { PrintArgs } from "./args.ts";

/** What these commands write to and stop on (`CliIo`'s part). */
type CommandIo = { stdout: (text: string) => void; stderr: (text: string) => void; signal: AbortSignal };

/** `cairn -p "/compact [instructions]"`: summarise the resumed conversation now, as Claude Code's `/compact` does. */
export async function runManualCompaction(options: {
  runtime: Runtime;
  wiring: SessionWiring;
  history: ConversationMessage[];
  instructions: string | undefined;
  sessionId: string;
  args: PrintArgs;
  io: CommandIo;
  emit: (line: object) => void;
}): Promise<number> {
  const { runtime, wiring, history, io, args, emit, sessionId } = options;
  if (history.length === 0) {
    io.stderr("cairn: /compact needs a conversation: use it with --resume <id> or --continue\n");
    return 2;
  }
  const steps = manualCompaction({
    compactor: wiring.compactor,
    sink: wiring.sink,
    messages: history,
    model: runtime.model.model,
    systemPrompt: runtime.systemPrompt,
    signal: io.signal,
    client: runtime.model.client,
    lastInputTokens: null,
    instructions: options.instructions,
    hooks: wiring.hooks,
    uuid: randomUUID,
    now: Date.now,
  });
  let step = await steps.next();
  for (; !step.done; step = await steps.next()) {
    if (step.value.type === "notice" && args.verbose) io.stderr(`cairn: ${step.value.message}\n`);
  }
  const outcome = step.value;
  await wiring.sink.close();
  if (!outcome.ok) {
    io.stderr(`cairn: compaction failed (${outcome.error.code}): ${outcome.error.message}. The conversation was left as it was.\n`);
    return 1;
  }
  const summary = outcome.figures
    ? `Compacted the conversation: ${outcome.figures.preTokens} → ${outcome.figures.postTokens} tokens.`
    : "Compacted the conversation.";
  if (args.outputFormat === "text") io.stdout(`${summary}\n`);
  else emit({ type: "result", subtype: "success", is_error: false, result: summary, session_id: sessionId, num_turns: 0 });
  return 0;
}

/** A slash command answered without the model: its text, as a result. */
export async function finishWithText(
  text: string,
  options: { args: PrintArgs; io: CommandIo; emit: (line: object) => void; sessionId: string },
): Promise<number> {
  if (options.args.outputFormat === "text") options.io.stdout(`${text}\n`);
  else options.emit({ type: "result", subtype: "success", is_error: false, result: text, session_id: options.sessionId, num_turns: 0 });
  return 0;
}
