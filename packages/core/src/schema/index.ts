export {
  contentBlockSchema,
  imageBlockSchema,
  redactedThinkingBlockSchema,
  textBlockSchema,
  thinkingBlockSchema,
  toolResultBlockSchema,
  toolResultContentSchema,
  toolUseBlockSchema,
} from "./content.ts";
export type {
  ContentBlock,
  ImageBlock,
  RedactedThinkingBlock,
  TextBlock,
  ThinkingBlock,
  ToolResultBlock,
  ToolResultContent,
  ToolUseBlock,
} from "./content.ts";
export { addUsage, emptyUsageTotals, usageSchema } from "./usage.ts";
export type { Usage, UsageTotals } from "./usage.ts";
export {
  decisionReasonSchema,
  permissionAnswerSchema,
  permissionBehaviorSchema,
  permissionDecisionRecordSchema,
  permissionModeSchema,
  permissionRuleSourceSchema,
} from "./permissions.ts";
export type {
  DecisionReason,
  PermissionAnswer,
  PermissionBehavior,
  PermissionDecisionRecord,
  PermissionMode,
  PermissionRuleSource,
} from "./permissions.ts";
export {
  assistantMessageSchema,
  compactMetadataSchema,
  conversationMessageSchema,
  hookRunRecordSchema,
  isCompactBoundary,
  modelCallRecordSchema,
  systemMessageSchema,
  toolCallRecordSchema,
  userMessageSchema,
} from "./messages.ts";
export type {
  AssistantMessage,
  CompactMetadata,
  ConversationMessage,
  HookRunRecord,
  ModelCallRecord,
  SystemMessage,
  ToolCallRecord,
  UserMessage,
} from "./messages.ts";
export { agentEventSchema, permissionQuestionFields, terminalReasonSchema, terminalSchema, todoItemSchema, usageTotalsSchema } from "./events.ts";
export type { AgentEvent, AgentEventOf, AgentEventType, Terminal, TerminalReason, TodoItem } from "./events.ts";
export {
  TRANSCRIPT_SCHEMA_VERSION,
  assistantLineSchema,
  checkpointLineSchema,
  projectDirName,
  sessionMetaLineSchema,
  sessionMetaLineText,
  systemLineSchema,
  tombstoneLineSchema,
  transcriptLineSchema,
  userLineSchema,
} from "./transcript.ts";
export type { SessionMetaLine, SessionMetaOptions, TombstoneLine, TranscriptLine, TranscriptMessageLine } from "./transcript.ts";
export type { CheckpointLine } from "./transcript.ts";
