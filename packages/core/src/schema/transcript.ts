import { z } from "zod";
import { assistantMessageSchema, hookRunRecordSchema, systemMessageSchema, userMessageSchema } from "./messages.ts";

/** Version of Cairn's additions to Claude Code's transcript format. */
export const TRANSCRIPT_SCHEMA_VERSION = 1;

// The line schemas are built at their first use (z.lazy): a process that only writes transcripts (`cairn -p`) reads
// none of them, and would build some 70 schemas at every start.

/** Fields Claude Code writes on every conversation line. */
const lineEnvelope = () => ({
  sessionId: z.string(),
  cwd: z.string().optional(),
  version: z.string().optional(),
  userType: z.string().optional(),
  gitBranch: z.string().optional(),
  /** Cairn: schema version of the line's additions. Absent on Claude Code lines. */
  cairnSchema: z.number().optional(),
});

export const userLineSchema = z.lazy(() => userMessageSchema.extend(lineEnvelope()));
export const assistantLineSchema = z.lazy(() => assistantMessageSchema.extend(lineEnvelope()));
export const systemLineSchema = z.lazy(() => systemMessageSchema.extend(lineEnvelope()));

/** Cairn: marks a line (by uuid) or a streamed message (by message id) as orphaned; readers drop it. */
export const tombstoneLineSchema = z.lazy(() =>
  z.looseObject({
    type: z.literal("tombstone"),
    sessionId: z.string(),
    timestamp: z.string(),
    tombstoneOf: z.string(),
    reason: z.string(),
    cairnSchema: z.number().optional(),
  }),
);

/** Cairn: the first line of a session file. Readers that do not know it skip it. */
export const sessionMetaLineSchema = z.lazy(() =>
  z.looseObject({
    type: z.literal("cairn-session"),
    sessionId: z.string(),
    timestamp: z.string(),
    cwd: z.string(),
    cairnSchema: z.number(),
    /** Cairn's version when the session was created. */
    version: z.string().optional(),
    model: z.string().optional(),
    title: z.string().optional(),
    forkedFrom: z.object({ sessionId: z.string(), messageUuid: z.string() }).optional(),
    /** Cairn: the session was imported from another tool's transcript. */
    importedFrom: z.looseObject({ format: z.literal("claude-code"), sessionId: z.string().optional(), path: z.string().optional() }).optional(),
  }),
);

/** Cairn: maps a message to the shadow-git checkpoint of the workspace taken when it was written. */
export const checkpointLineSchema = z.lazy(() =>
  z.looseObject({
    type: z.literal("cairn-checkpoint"),
    sessionId: z.string(),
    timestamp: z.string(),
    messageUuid: z.string(),
    commit: z.string(),
    cairnSchema: z.number().optional(),
  }),
);

/** Cairn: the hooks one session event ran (UserPromptSubmit, Stop, SessionStart, …), for the timeline. */
export const hookRunsLineSchema = z.lazy(() =>
  z.looseObject({
    type: z.literal("cairn-hooks"),
    sessionId: z.string(),
    timestamp: z.string(),
    event: z.string(),
    runs: z.array(hookRunRecordSchema),
    agentId: z.string().optional(),
    cairnSchema: z.number().optional(),
  }),
);

export const transcriptLineSchema = z.lazy(() =>
  z.discriminatedUnion("type", [
    userLineSchema,
    assistantLineSchema,
    systemLineSchema,
    tombstoneLineSchema,
    sessionMetaLineSchema,
    checkpointLineSchema,
    hookRunsLineSchema,
  ]),
);
export type TranscriptLine = z.infer<typeof transcriptLineSchema>;
export type TranscriptMessageLine = z.infer<typeof userLineSchema> | z.infer<typeof assistantLineSchema> | z.infer<typeof systemLineSchema>;
export type TombstoneLine = z.infer<typeof tombstoneLineSchema>;
export type SessionMetaLine = z.infer<typeof sessionMetaLineSchema>;
export type CheckpointLine = z.infer<typeof checkpointLineSchema>;

/** What a session's meta line says beyond its fixed fields; absent options stay off the line. */
export type SessionMetaOptions = Partial<Pick<SessionMetaLine, "model" | "title" | "forkedFrom" | "importedFrom">>;

/** A session's first line as text (no newline), the same for every store that writes transcript lines. */
export function sessionMetaLineText(session: { sessionId: string; cwd: string; version: string; timestamp: string }, options: SessionMetaOptions = {}): string {
  const meta: SessionMetaLine = {
    type: "cairn-session",
    sessionId: session.sessionId,
    timestamp: session.timestamp,
    cwd: session.cwd,
    cairnSchema: TRANSCRIPT_SCHEMA_VERSION,
    version: session.version,
    ...(options.model === undefined ? {} : { model: options.model }),
    ...(options.title === undefined ? {} : { title: options.title }),
    ...(options.forkedFrom === undefined ? {} : { forkedFrom: options.forkedFrom }),
    ...(options.importedFrom === undefined ? {} : { importedFrom: options.importedFrom }),
  };
  return JSON.stringify(meta);
}

/** `$CAIRN_HOME/projects/<this>/`: the cwd with each non-alphanumeric character replaced by "-", as Claude Code does. */
export function projectDirName(cwd: string): string {
  return cwd.replace(/[^a-zA-Z0-9]/g, "-");
}
