import { homedir } from "node:os";
import type { BrowserSessionRepository } from "../auth/browser-session-secrets.ts";
import { GitService } from "../git/git-service.ts";
import type { SessionHub } from "../hub/session-hub.ts";
import { createReviewPort } from "../review/review-port.ts";
import { createWorktreePort } from "../worktree/worktree-port.ts";
import type { WorktreeSessions } from "../worktree/worktree-sessions.ts";
import type { ApiContext } from "../router/context.ts";
import type { Runtime } from "../runtime/runtime-types.ts";
import { secretEnvironmentValues } from "../share/env-secrets.ts";
import { TokenBucketLimiter } from "../share/rate-limiter.ts";
import { createRedactor } from "../share/redact.ts";
import { ShareService } from "../share/share-service.ts";
import type { ShareRepository } from "../share/share-records.ts";
import { ShareViewService } from "../share/share-view-service.ts";
import { DEFAULT_STREAM_LIMITS, ShareStreamGate } from "../share/stream-gate.ts";
import type { TerminalManager } from "../terminal/terminal-manager.ts";
import { loadTimelineSource } from "../timeline/source.ts";
import { TimelineWorkerClient } from "../timeline/timeline-worker-client.ts";
import { type LineStore, storeTimelineSource } from "../timeline/store-timeline-cache.ts";
import { McpService } from "./mcp-service.ts";
import { MetaService } from "./meta-service.ts";
import type { ShareOptions } from "./server-options.ts";
import { SettingsService } from "./settings-service.ts";
import type { TrustRepository } from "./trust-store.ts";
import type { WorkspaceFiles } from "./workspace-files.ts";

export type ApiServicesInput = {
  runtime: Runtime;
  hub: SessionHub;
  /** Sessions in worktrees of their own (undefined where the workspace is not on this node). */
  worktrees: WorktreeSessions | undefined;
  terminals: TerminalManager;
  files: WorkspaceFiles;
  trustStore: TrustRepository;
  shareStore: ShareRepository;
  browserSessions: BrowserSessionRepository;
  /** The access token: redacted from everything a share shows. */
  token: string;
  /** The model API key, when given: redacted too. */
  apiKey: string | undefined;
  managedSettingsPath: string | undefined;
  shareOptions: ShareOptions | undefined;
  now: () => number;
};

/** The services the two routers serve: the IDE's context, and the share view that anonymous share links read through. */
export function createApiServices(input: ApiServicesInput): { context: ApiContext; shareView: ShareViewService; timeline: TimelineWorkerClient } {
  const { runtime, hub, shareStore, shareOptions, now } = input;
  const { lineTexts } = runtime.transcripts;
  // A store of rows (PostgreSQL): timelines are built from it, since no node has the transcript on its disk.
  const rows: LineStore | undefined = lineTexts ? { lineTexts: lineTexts.bind(runtime.transcripts) } : undefined;
  const redactor = createRedactor({
    extraSecrets: [
      { kind: "cairn-access-token", value: input.token },
      ...secretEnvironmentValues(shareOptions?.environment ?? process.env),
      ...secretEnvironmentValues(runtime.settings.merged.env ?? {}),
      ...(input.apiKey ? [{ kind: "env-secret", value: input.apiKey }] : []),
    ],
    workspaceRoot: runtime.workspaceRoot,
    homeDir: homedir(),
  });
  const shareView = new ShareViewService({
    store: shareStore,
    sessions: hub,
    redactor,
    limiter: new TokenBucketLimiter({ now, ...shareOptions?.rateLimit }),
    gate: new ShareStreamGate({
      limits: { ...DEFAULT_STREAM_LIMITS, ...shareOptions?.streams },
      opens: new TokenBucketLimiter({ now, ...shareOptions?.streamOpens }),
    }),
    workspaceRoot: runtime.workspaceRoot,
    now,
    ...(shareOptions?.recheckMs !== undefined ? { recheckMs: shareOptions.recheckMs } : {}),
    // A shared timeline shows what the share shows: the lines of its (possibly pinned) messages.
    timeline:
      shareOptions?.timeline ??
      ((timelineInput) => {
        const options = {
          messageUuids: new Set(timelineInput.messages.map((message) => message.uuid)),
          ...(timelineInput.signal ? { signal: timelineInput.signal } : {}),
        };
        return rows
          ? storeTimelineSource(rows, runtime.workspaceRoot, timelineInput.sessionId, options)
          : loadTimelineSource(runtime, timelineInput.sessionId, options);
      }),
  });
  // Timelines are built in a worker thread: from the files, or from rows (PostgreSQL) this thread reads for it.
  const timeline = new TimelineWorkerClient(runtime, rows ? { rows } : {});
  const context: ApiContext = {
    meta: new MetaService(runtime, input.trustStore),
    sessions: hub,
    files: input.files,
    settings: new SettingsService(runtime, (sessionId) => hub.sessionRules(sessionId), input.managedSettingsPath),
    terminals: input.terminals,
    shares: new ShareService({ store: shareStore, sessions: hub, redactor, workspaceRoot: runtime.workspaceRoot, now }),
    mcp: new McpService(runtime.mcp),
    timeline,
    review: createReviewPort(hub),
    git: new GitService({
      // Git runs where the workspace lives (in the worker, when it is a separate process), never here.
      repository: runtime.workspace.git,
      model: { client: runtime.model.client, name: () => runtime.store.getState().model },
    }),
    auth: { signOutEverywhere: () => input.browserSessions.revokeAll() },
    ...(input.worktrees ? { worktrees: createWorktreePort(hub, input.worktrees) } : {}),
  };
  return { context, shareView, timeline };
}
