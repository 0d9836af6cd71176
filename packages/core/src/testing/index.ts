export { createScriptedModel, turnToParts } from "./scripted-model.ts";
export type { ScriptedBlock, ScriptedModel, ScriptedTurn } from "./scripted-model.ts";
export { collectEvents, eventsOf, fixedClock, sequentialIds, testContext, testDeps, unusedWorkspace } from "./harness.ts";
export { createTestTool, delay } from "./test-tools.ts";
export type { ToolLogEntry } from "./test-tools.ts";
export { instantiateRedirectCase, redirectCorpus, type RedirectCase } from "./redirect-corpus.ts";
export {
  createMemoryWorkspace,
  type ExecScript,
  type MemoryEntry,
  type MemoryWorkspace,
  type MemoryWorkspaceOptions,
  type ScriptedExec,
} from "./memory-workspace.ts";
