// Shared by the permission tests: small real tools, a context and an engine over an app-state store.
import { z } from "zod";
import type { AssistantMessage } from "../schema/messages.ts";
import type { PermissionMode } from "../schema/permissions.ts";
import { createInitialAppState, type AppState } from "../state/app-state.ts";
import { createStore, type Store } from "../state/store.ts";
import type { Tool, ToolUseContext } from "../tools/tool.ts";
import type { Workspace } from "../workspace/port.ts";
import { createPermissionEngine, type PermissionEngine, type PermissionEngineOptions } from "./engine.ts";
import type { PermissionCheckArgs } from "./port.ts";
import { mergeSettings, type CliPermissionInput, type SettingsLayer } from "./settings-merge.ts";
import type { SettingsFile, SettingsSource } from "./settings-schema.ts";
import type { ShellParser } from "./shell/shell-parser.ts";

export const WORKSPACE = "/ws";
export const HOME = "/home/dev";

type FakeToolSpec = {
  name: string;
  readOnly?: boolean;
  mcpInfo?: { serverName: string; toolName: string };
  checkPermissions?: Tool["checkPermissions"];
};

export function fakeTool(spec: FakeToolSpec): Tool<Record<string, unknown>> {
  return {
    name: spec.name,
    inputSchema: z.record(z.string(), z.unknown()),
    description: `${spec.name} (test)`,
    ...(spec.mcpInfo ? { mcpInfo: spec.mcpInfo } : {}),
    isReadOnly: () => spec.readOnly ?? false,
    isConcurrencySafe: () => spec.readOnly ?? false,
    ...(spec.checkPermissions ? { checkPermissions: spec.checkPermissions } : {}),
    call: async () => ({ output: null }),
  };
}

export const tools = {
  Bash: fakeTool({ name: "Bash" }),
  Read: fakeTool({ name: "Read", readOnly: true }),
  Glob: fakeTool({ name: "Glob", readOnly: true }),
  Grep: fakeTool({ name: "Grep", readOnly: true }),
  Edit: fakeTool({ name: "Edit" }),
  Write: fakeTool({ name: "Write" }),
  NotebookEdit: fakeTool({ name: "NotebookEdit" }),
  WebFetch: fakeTool({ name: "WebFetch", readOnly: true }),
  ExitPlanMode: fakeTool({ name: "ExitPlanMode" }),
  TodoWrite: fakeTool({ name: "TodoWrite" }),
  memoryRead: fakeTool({ name: "mcp__memory__read", readOnly: true, mcpInfo: { serverName: "memory", toolName: "read" } }),
  memoryWrite: fakeTool({ name: "mcp__memory__write", mcpInfo: { serverName: "memory", toolName: "write" } }),
};

const assistantMessage: AssistantMessage = {
  uuid: "a-1",
  timestamp: "2026-01-01T00:00:00.000Z",
  type: "assistant",
  message: { id: "msg_1", role: "assistant", model: "test", content: [] },
};

export type Harness = {
  engine: PermissionEngine;
  store: Store<AppState>;
  persisted: string[];
  args(tool: Tool, input: Record<string, unknown>, extra?: Partial<PermissionCheckArgs>): PermissionCheckArgs;
  setMode(mode: PermissionMode): void;
};

export type HarnessOptions = {
  layers?: Array<{ source: SettingsSource; settings: SettingsFile }>;
  cli?: CliPermissionInput;
  parser?: ShellParser | Promise<ShellParser> | (() => Promise<ShellParser>);
  mode?: PermissionMode;
  engine?: Partial<PermissionEngineOptions>;
};

export function createHarness(options: HarnessOptions = {}): Harness {
  const layers: SettingsLayer[] = (options.layers ?? []).map((layer) => ({ ...layer, file: `${layer.source}.json` }));
  const merged = mergeSettings(layers, { roots: { projectRoot: WORKSPACE, homeDir: HOME }, ...(options.cli ? { cli: options.cli } : {}) });
  if (merged.problems.length > 0) throw new Error(`test settings have problems: ${JSON.stringify(merged.problems)}`);
  const store = createStore(createInitialAppState({ model: "test", permissionMode: options.mode ?? merged.permissions.defaultMode }));
  const persisted: string[] = [];
  const engine = createPermissionEngine({
    getSettings: () => merged,
    getAppState: store.getState,
    setAppState: store.setState,
    workspaceRoot: WORKSPACE,
    homeDir: HOME,
    ...(options.parser ? { parser: options.parser } : {}),
    persistRule: async (rule) => {
      persisted.push(rule);
    },
    ...options.engine,
  });
  const context = (): ToolUseContext => ({
    sessionId: "s-1",
    cwd: WORKSPACE,
    signal: new AbortController().signal,
    workspace: {} as unknown as Workspace,
    tools: Object.values(tools),
    messages: [],
    readFileState: new Map(),
    getAppState: store.getState,
    setAppState: store.setState,
    services: {},
  });
  return {
    engine,
    store,
    persisted,
    args: (tool, input, extra = {}) => ({ tool, input, toolUseId: "tu-1", context: context(), assistantMessage, ...extra }),
    setMode: (mode) => store.setState((state) => ({ ...state, permissionMode: mode })),
  };
}
