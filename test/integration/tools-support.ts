import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  builtinTools,
  createInitialAppState,
  createStore,
  findToolByName,
  type AnyTool,
  type ToolResult,
  type ToolUseContext,
  type Workspace,
} from "@cairn/core";
import type { AssistantMessage, ToolResultContent } from "@cairn/core/schema";
import { createLocalWorkspace } from "@cairn/worker";

/** Helpers for the tools-*.test.ts integration tests: a real worker workspace in a temp dir, and a runner shaped like the pipeline. */

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
    run: (name, input, context = defaultContext) => runTool(findToolByName(tools, name) ?? missingTool(name), input, context),
    async dispose() {
      await workspace.dispose();
      await rm(parent, { recursive: true, force: true });
    },
  };
}

function missingTool(name: string): never {
  throw new Error(`no built-in tool named ${name}`);
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

export type ToolRun =
  | { stage: "input" | "validation"; text: string; isError: true; progress: unknown[]; output: undefined }
  | { stage: "result"; text: string; content: ToolResultContent; isError: boolean; progress: unknown[]; output: unknown };

/** Parse → validateInput → call (draining progress) → render, as the execution pipeline does. */
export async function runTool(tool: AnyTool, rawInput: unknown, context: ToolUseContext): Promise<ToolRun> {
  const parsed = tool.inputSchema.safeParse(rawInput);
  if (!parsed.success) return { stage: "input", text: parsed.error.message, isError: true, progress: [], output: undefined };
  const validation = (await tool.validateInput?.(parsed.data, context)) ?? { ok: true };
  if (!validation.ok) return { stage: "validation", text: validation.message, isError: true, progress: [], output: undefined };
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
  const text = typeof content === "string" ? content : JSON.stringify(content);
  return { stage: "result", text, content, isError: result.isError === true, progress, output: result.output };
}
