// Permissions, settings and hooks (Node).
export { createNodeShellParser, nodeShellWasmLoader } from "./shell-parser.ts";
export { DEFAULT_MANAGED_SETTINGS_PATH, loadSettings, settingsFilePaths } from "./settings-loader.ts";
export type { LoadedSettings, LoadSettingsOptions } from "./settings-loader.ts";
export {
  addPermissionRule,
  createPermissionRulePersister,
  localSettingsPath,
  SettingsWriteError,
  settingsWriteErrorCodes,
  writeFileAtomic,
} from "./settings-writer.ts";
export type { SettingsWriteErrorCode } from "./settings-writer.ts";
export { createNodeHookRunner } from "./hook-runner.ts";
export type { NodeHookRunnerOptions } from "./hook-runner.ts";
// Session persistence (Node): JSONL store, tolerant loader, listing, fork, import/export, checkpoints.
export { TranscriptStoreError, assertSessionId, createJsonlTranscriptStore, sessionTranscriptPath, subagentTranscriptPath } from "./transcript-store.ts";
export type { FsyncPolicy, JsonlTranscriptStore, JsonlTranscriptStoreOptions, TranscriptStoreErrorCode } from "./transcript-store.ts";
export { indexTranscriptFile, loadTranscript } from "./transcript-reader.ts";
export type { LoadTranscriptOptions, LoadedTranscript } from "./transcript-reader.ts";
export { addTranscriptLine, readTranscriptLines } from "./transcript-lines.ts";
export type { TranscriptLinesReport } from "./transcript-lines.ts";
export { readHeadAndTail } from "./transcript-head-tail.ts";
export type { HeadAndTailOptions, SessionFileSummary } from "./transcript-head-tail.ts";
export { findSessionTranscript, listSessions, listTranscriptFiles } from "./transcript-list.ts";
export type { ListSessionsOptions, TranscriptFile } from "./transcript-list.ts";
export { forkSession, writeNewSession } from "./transcript-fork.ts";
export type { ForkResult, NewSession, WriteSessionOptions, WrittenSession } from "./transcript-fork.ts";
export { importClaudeCodeTranscript, readClaudeCodeTranscript } from "./transcript-import.ts";
export type { ImportOptions, ImportResult } from "./transcript-import.ts";
export { exportTranscript } from "./transcript-export.ts";
export type { ExportFormat, ExportOptions } from "./transcript-export.ts";
export { CheckpointError, createCheckpointStore } from "./checkpoint.ts";
export type { ChangedFile, Checkpoint, CheckpointErrorCode, CheckpointStore, CheckpointStoreOptions, RestoreResult } from "./checkpoint.ts";
// MCP (Node): configuration files, stdio/HTTP/SSE transports, the manager.
export { loadMcpServers } from "./mcp-config.ts";
export type { LoadMcpServersOptions } from "./mcp-config.ts";
export { createNodeMcpTransportFactory } from "./mcp-transport.ts";
export type { NodeMcpTransportFactory, NodeMcpTransportOptions, StdioLaunch, StdioLauncher, StdioLaunchRequest } from "./mcp-transport.ts";
export { createNodeMcpManager } from "./mcp-manager.ts";
export type { NodeMcpManagerOptions } from "./mcp-manager.ts";
// Model requests without undici (cairn -p).
export { httpFetch } from "./http-fetch.ts";
// Memory files and skills (Node).
export { createNodeMemoryFs } from "./memory-fs.ts";
export { createToolResultFiles, toolResultsDirectory } from "./tool-result-files.ts";
