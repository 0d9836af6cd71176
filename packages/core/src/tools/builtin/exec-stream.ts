import { Notifier } from "../../state/notifier.ts";
import type { ExecOptions, ExecResult, OutputChunk, Workspace } from "../../workspace/port.ts";

export type ExecEvent = { type: "output"; chunk: OutputChunk } | { type: "exit"; result: ExecResult };

/**
 * Runs `workspace.exec` as an async generator: yields output chunks as they arrive (consecutive
 * chunks of one stream merged), then the result. Consume it with `for await`: if the consumer stops
 * early, or the signal aborts, the command is aborted and awaited in `finally`, so nothing keeps
 * running unseen.
 */
export async function* streamExec(
  workspace: Workspace,
  command: string,
  options: Omit<ExecOptions, "onOutput" | "signal">,
  signal: AbortSignal,
): AsyncGenerator<ExecEvent, void, void> {
  const controller = new AbortController();
  const forwardAbort = () => controller.abort(signal.reason);
  if (signal.aborted) forwardAbort();
  else signal.addEventListener("abort", forwardAbort, { once: true });

  const pending: OutputChunk[] = [];
  const wakeUps = new Notifier();
  let settled = false;
  const execution = workspace.exec(command, {
    ...options,
    signal: controller.signal,
    onOutput(chunk) {
      pending.push(chunk);
      wakeUps.notify();
    },
  });
  const finished = execution.then(
    () => undefined,
    () => undefined,
  );
  void finished.then(() => {
    settled = true;
    wakeUps.close();
  });

  try {
    for (;;) {
      const merged = mergeChunks(pending.splice(0));
      for (const chunk of merged) yield { type: "output", chunk };
      if (merged.length > 0) continue;
      if (settled) break;
      await wakeUps.wait();
    }
    yield { type: "exit", result: await execution };
  } finally {
    signal.removeEventListener("abort", forwardAbort);
    if (!settled) {
      controller.abort(new Error("Command output was abandoned"));
      await finished;
    }
  }
}

function mergeChunks(chunks: OutputChunk[]): OutputChunk[] {
  const merged: OutputChunk[] = [];
  for (const chunk of chunks) {
    const last = merged.at(-1);
    if (last && last.stream === chunk.stream) last.data += chunk.data;
    else merged.push({ ...chunk });
  }
  return merged;
}
