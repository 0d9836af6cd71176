import { randomUUID } from "node:crypto";
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  allowAllGate,
  builtinTools,
  createInitialAppState,
  createStore,
  headlessPrompter,
  noHooks,
  runToolUse,
  type AnyTool,
  type PipelineServices,
  type ToolRunOutcome,
  type ToolUseContext,
  type Workspace,
} from "@cairn/core";
import type { AgentEvent, AssistantMessage, ToolResultContent } from "@cairn/core/schema";
import { createLocalWorkspace } from "@cairn/worker";

/**
 * Helpers for the tools-*.test.ts integration tests: a real worker workspace in a temp dir, and calls run through the
 * real tool pipeline (`runToolUse`: validation, hooks, permission decision, call, result budget) with an allow-all gate.
 */

export type ToolsFixture = {
  /** The temp directory holding the workspace and, beside it, files the tools must never reach. */
  parent: string;
  root: string;
  workspace: Workspace;
  tools: AnyTool[];
  context(overrides?: Partial<ToolUseContext>): ToolUseContext;
  run(name: string, input: unknown, context?: ToolUseContext): Promise<ToolRun>;
  dispose(): Promise<void>;
};

export async function createToolsFixture(
  files: Record<string, string> = {},
  options: { forceJsSearch?: boolean; sandbox?: boolean } = {},
): Promise<ToolsFixture> {
  const parent = await realpath(await mkdtemp(join(tmpdir(), "cairn-tools-")));
  const root = join(parent, "ws");
  await mkdir(root);
  for (const [name, content] of Object.entries(files)) {
    await mkdir(join(root, name, ".."), { recursive: true });
    await writeFile(join(root, name), content);
  }
  const workspace = await createLocalWorkspace({
    root,
    sandbox: { enabled: options.sandbox ?? true },
    ...(options.forceJsSearch ? { forceJsSearch: true } : {}),
  });
  const tools = builtinTools();
  const defaultContext = makeContext(workspace, tools);
  return {
    parent,
    root,
    workspace,
    tools,
    context: (overrides = {}) => ({ ...makeContext(workspace, tools), ...overrides }),
    run: (name, input, context = defaultContext) => runTool(name, input, context),
    async dispose() {
      await workspace.dispose();
      await rm(parent, { recursive: true, force: true });
    },
  };
}

/** Calls through the same pipeline against any workspace (a remote worker's, say), sharing one context. */
export function workspaceToolRunner(workspace: Workspace): (name: string, input: unknown) => Promise<ToolRun> {
  const tools = builtinTools();
  const context = makeContext(workspace, tools);
  return (name, input) => runTool(name, input, context);
}

function makeContext(workspace: Workspace, tools: AnyTool[]): ToolUseContext {
  const store = createStore(createInitialAppState({ model: "test-model" }));
  return {
    sessionId: "session-integration",
    cwd: workspace.root,
    signal: new AbortController().signal,
    workspace,
    tools,
    messages: [],
    readFileState: new Map(),
    getAppState: store.getState,
    setAppState: store.setState,
    services: {},
  };
}

const assistantMessage: AssistantMessage = {
  type: "assistant",
  uuid: "assistant-1",
  timestamp: "2026-01-01T00:00:00.000Z",
  message: { id: "msg-1", role: "assistant", model: "test-model", content: [] },
};

/** The pipeline's ports as a session without permission rules or hooks has them: every call allowed, no hook runs. */
const allowAll: PipelineServices = {
  gate: allowAllGate,
  prompter: headlessPrompter,
  hooks: noHooks,
  uuid: randomUUID,
  now: Date.now,
  timestamp: () => new Date().toISOString(),
};

export type ToolRun = {
  /** The `tool_result` content, as the model gets it (after hooks and the result budget). */
  content: ToolResultContent;
  /** `content` as text (JSON for block content). */
  text: string;
  isError: boolean;
  /** Why the call failed, from the call's record: `InputValidationError`, a tool's validation code (`file_not_read`), … */
  errorClass: string | undefined;
  /** The tool's structured output (`toolUseResult`). */
  output: unknown;
  /** What the tool reported while running. */
  progress: unknown[];
  events: AgentEvent[];
  outcome: ToolRunOutcome;
};

/** One call through the real execution pipeline (`runToolUse` from @cairn/core), as the query loop makes it. */
async function runTool(name: string, input: unknown, context: ToolUseContext): Promise<ToolRun> {
  const block = { type: "tool_use" as const, id: `toolu_${randomUUID()}`, name, input };
  const generator = runToolUse(block, assistantMessage, context, allowAll, 0);
  const events: AgentEvent[] = [];
  let step = await generator.next();
  while (!step.done) {
    events.push(step.value);
    step = await generator.next();
  }
  const outcome = step.value;
  const result = outcome.message.message.content;
  const block0 = Array.isArray(result) ? result[0] : undefined;
  if (block0?.type !== "tool_result") throw new Error(`the pipeline answered ${name} without a tool_result: ${JSON.stringify(result)}`);
  const content = block0.content ?? "";
  return {
    content,
    text: typeof content === "string" ? content : JSON.stringify(content),
    isError: block0.is_error === true,
    errorClass: outcome.record.errorClass,
    output: outcome.message.toolUseResult,
    progress: events.flatMap((event) => (event.type === "tool-progress" ? [event.data] : [])),
    events,
    outcome,
  };
}
