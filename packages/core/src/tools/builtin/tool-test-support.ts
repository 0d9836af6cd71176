import type { ToolResultContent } from "../../schema/content.ts";
import type { AssistantMessage } from "../../schema/messages.ts";
import { createInitialAppState, type AppState } from "../../state/app-state.ts";
import { createStore, type Store } from "../../state/store.ts";
import type { Workspace } from "../../workspace/port.ts";
import type { AnyTool, ToolResult, ToolUseContext } from "../tool.ts";

/** Test-only helpers for the built-in tools' unit tests: a context and a runner shaped like the pipeline. */

export function toolContext(workspace: Workspace, overrides: Partial<ToolUseContext> = {}): ToolUseContext & { store: Store<AppState> } {
  const store = createStore(createInitialAppState({ model: "test-model" }));
  return {
    store,
    sessionId: "session-1",
    cwd: workspace.root,
    signal: new AbortController().signal,
    workspace,
    tools: [],
    messages: [],
    readFileState: new Map(),
    getAppState: store.getState,
    setAppState: store.setState,
    services: {},
    ...overrides,
  };
}

const assistantMessage: AssistantMessage = {
  type: "assistant",
  uuid: "assistant-1",
  timestamp: "2026-01-01T00:00:00.000Z",
  message: { id: "msg-1", role: "assistant", model: "test-model", content: [] },
};

export type ToolRun =
  | { stage: "input"; message: string }
  | { stage: "validation"; message: string; code: string | undefined }
  | { stage: "result"; result: ToolResult; content: ToolResultContent; isError: boolean; progress: unknown[] };

/** Parse → validateInput → call (draining progress) → render, as the execution pipeline does. */
export async function runTool(tool: AnyTool, rawInput: unknown, context: ToolUseContext): Promise<ToolRun> {
  const parsed = tool.inputSchema.safeParse(rawInput);
  if (!parsed.success) return { stage: "input", message: parsed.error.message };
  const validation = (await tool.validateInput?.(parsed.data, context)) ?? { ok: true };
  if (!validation.ok) return { stage: "validation", message: validation.message, code: validation.code };
  const call = tool.call(parsed.data, context, { toolUseId: "toolu_1", assistantMessage });
  const progress: unknown[] = [];
  let result: ToolResult;
  if (Symbol.asyncIterator in call) {
    let step = await call.next();
    while (!step.done) {
      progress.push(step.value.data);
      step = await call.next();
    }
    result = step.value;
  } else {
    result = await call;
  }
  const content = result.content ?? tool.renderResult?.(result.output, "toolu_1") ?? JSON.stringify(result.output);
  return { stage: "result", result, content, isError: result.isError === true, progress };
}

/** The text a run produced at whatever stage it stopped, for assertions. */
export function runText(run: ToolRun): string {
  if (run.stage !== "result") return run.message;
  return typeof run.content === "string" ? run.content : JSON.stringify(run.content);
}

export function expectResult(run: ToolRun): Extract<ToolRun, { stage: "result" }> {
  if (run.stage !== "result") throw new Error(`expected a result, got ${run.stage}: ${run.message}`);
  return run;
}
