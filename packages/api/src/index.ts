export { createRuntime } from "./runtime/create-runtime.ts";
export type { Runtime, RuntimeOptions, SessionWiring } from "./runtime/runtime-types.ts";
export { resolveModelSource, DEFAULT_MODEL, DEMO_MODEL } from "./runtime/model-source.ts";
export type { ModelSource } from "./runtime/model-source.ts";
export { buildSystemPrompt, CAIRN_SYSTEM_PROMPT } from "./runtime/system-prompt.ts";
export { appRouter } from "./router/index.ts";
export type { AppRouter } from "./router/index.ts";
export { ApiError, apiErrorCodes } from "./router/errors.ts";
export type { ApiErrorCode, ApiErrorData, ApiErrorDetails } from "./router/errors.ts";
export type {
  CompactResult,
  FileContent,
  MetaInfo,
  RewindMode,
  RewindResult,
  SendResult,
  SessionEvent,
  SessionSnapshot,
  SessionStateEvent,
  SessionSummary,
  SettingsProblemInfo,
  SettingsRule,
  SettingsView,
  TerminalOutput,
  TreeEntry,
  TreeResult,
  WorkspaceChange,
  WriteResult,
} from "./router/types.ts";
export type { ApiContext, SequencedEvent } from "./router/context.ts";
export { openSessionIndex, sessionQuerySchema, sessionRowSchema } from "./session-index/session-index.ts";
export type { RefreshReport, SessionIndex, SessionIndexOptions, SessionQuery, SessionRow } from "./session-index/session-index.ts";
export { DistributedConfigError, redactUrl, resolveDistributedConfig, splitWorkerUrls } from "./distributed/distributed-config.ts";
export type { DistributedConfig, DistributedSettings } from "./distributed/distributed-config.ts";
export { importSessionToDatabase } from "./distributed/import-to-database.ts";
export { startServer } from "./server/start-server.ts";
export type { CairnServer } from "./server/start-server.ts";
export { ServerConfigError, DEFAULT_HOST, DEFAULT_PORT } from "./server/server-options.ts";
export type { StartServerOptions } from "./server/server-options.ts";
export { isWebAppBuilt, loadNextHandler, WebAppNotBuiltError } from "./server/next-handler.ts";
export type { WebHandler } from "./server/next-handler.ts";
export { generateAccessToken, isLoopbackHost, tokensEqual } from "./auth/access-token.ts";
export { AccessGuard } from "./auth/access-guard.ts";
export type { AccessDecision } from "./auth/access-guard.ts";
export { SessionHub } from "./hub/session-hub.ts";
export type { SessionHubOptions } from "./hub/session-hub-options.ts";
export { MemoryEventBus, DEFAULT_RING_SIZE } from "./hub/event-bus.ts";
export type { EventBus, EventListener, Replay } from "./hub/event-bus.ts";
export { streamEvents } from "./hub/event-stream.ts";
export { trpcHttpCall } from "./server/loopback-trpc.ts";
export { TerminalManager } from "./terminal/terminal-manager.ts";
export { TrustStore } from "./server/trust-store.ts";
export { ensureSampleWorkspace } from "./server/sample-workspace.ts";
export { checkpointingGate } from "./hub/checkpointing-gate.ts";
export { shareViewRouter } from "./router/share-view.ts";
export type { ShareViewContext, ShareViewRouter } from "./router/share-view.ts";
export { createRedactor, maskSecret, redactionMarker } from "./share/redact.ts";
export type { ExactSecret, RedactionHit, Redactor, RedactorOptions } from "./share/redact.ts";
export { secretEnvironmentValues } from "./share/env-secrets.ts";
export { ShareStore } from "./share/share-store.ts";
export { isShareLive, shareModeSchema } from "./share/share-records.ts";
export type { ShareMode, ShareRecord, ShareRepository } from "./share/share-records.ts";
export { generateShareToken, hashShareToken, SHARE_TOKEN_PREFIX } from "./share/share-token.ts";
export { SHARE_NOT_FOUND_MESSAGE, ShareError } from "./share/share-errors.ts";
export type { ShareErrorCode } from "./share/share-errors.ts";
export type {
  CreatedShare,
  ForkedShare,
  RotatedShare,
  SharedSessionView,
  SharePreview,
  SharePreviewHit,
  SharesPort,
  ShareSummary,
  ShareViewPort,
} from "./share/share-types.ts";
export type { ShareOptions } from "./server/server-options.ts";
export { loadTimelineSource } from "./timeline/source.ts";
export type { LoadTimelineSourceOptions, TimelineStoreLocation } from "./timeline/source.ts";
export { importTranscriptText } from "./timeline/import-transcript.ts";
export { TimelineService } from "./timeline/timeline-service.ts";
export { MAX_TRANSCRIPT_CHARS } from "./timeline/timeline-port.ts";
export type { ImportedTranscript, TimelinePort } from "./timeline/timeline-port.ts";
