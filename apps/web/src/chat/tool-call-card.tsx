"use client";

import { useState } from "react";
import type { ToolCallView } from "./chat-types";
import { describeDecision, formatDuration, toolSummary } from "./describe";
import { safeJson } from "./tool-text";
import { SubagentProgress } from "./subagent-progress";

const RESULT_PREVIEW = 4_000;

const statusLabel: Record<ToolCallView["status"], string> = {
  pending: "pending",
  running: "running",
  completed: "done",
  error: "error",
};

/** One tool call: input, streamed progress, result, duration and the permission decision, all as text. */
export function ToolCallCard({ call, onOpenFile }: { call: ToolCallView; onOpenFile?: (path: string) => void }) {
  const status = call.awaitingPermission ? "pending" : call.status;
  const [open, setOpen] = useState(false);
  const input = call.input ?? (call.inputJson ? call.inputJson : undefined);
  const summary = toolSummary(call.name, call.input);
  const filePath =
    typeof (call.input as { file_path?: unknown } | undefined)?.file_path === "string" ? (call.input as { file_path: string }).file_path : undefined;
  return (
    <div
      className={`tool-call status-${status}`}
      data-testid="tool-call"
      data-tool-name={call.name}
      data-status={status}
      data-tool-use-id={call.toolUseId}
      data-batch={call.record?.batch}
    >
      <button type="button" className="tool-call-header" aria-expanded={open} onClick={() => setOpen(!open)}>
        <span className={`status-dot ${status}`} aria-hidden />
        <span className="tool-name">{call.name}</span>
        <span className="tool-summary">{summary}</span>
        <span className="tool-meta">
          {call.awaitingPermission ? "waiting for you" : statusLabel[call.status]}
          {call.record ? ` · ${formatDuration(call.record.durationMs)}` : ""}
        </span>
      </button>
      {call.decision ? (
        <div className={`tool-decision ${call.decision.behavior}`} data-testid="tool-decision">
          {describeDecision(call.decision)}
        </div>
      ) : null}
      {open ? (
        <div className="tool-call-body">
          {filePath && onOpenFile ? (
            <button type="button" className="link-button" onClick={() => onOpenFile(filePath)}>
              Open {filePath}
            </button>
          ) : null}
          <Section label="Input">{typeof input === "string" ? input : safeJson(input, 2)}</Section>
          {call.record && call.record.permissionWaitMs > 0 ? (
            <p className="tool-note">Waited {formatDuration(call.record.permissionWaitMs)} for permission.</p>
          ) : null}
        </div>
      ) : null}
      {call.subagent ? <SubagentProgress subagent={call.subagent} /> : null}
      {call.progress ? (
        <Section label="Output" testId="tool-progress">
          {tail(call.progress, RESULT_PREVIEW)}
        </Section>
      ) : null}
      {call.result ? <ToolResult text={call.result.text} isError={call.result.isError} /> : null}
    </div>
  );
}

function ToolResult({ text, isError }: { text: string; isError: boolean }) {
  const [full, setFull] = useState(false);
  const long = text.length > RESULT_PREVIEW;
  return (
    <div className={`tool-result${isError ? " error" : ""}`} data-testid="tool-result">
      <pre>{full || !long ? text : `${text.slice(0, RESULT_PREVIEW)}…`}</pre>
      {long ? (
        <button type="button" className="link-button" onClick={() => setFull(!full)}>
          {full ? "Show less" : `Show all ${text.length.toLocaleString()} characters`}
        </button>
      ) : null}
    </div>
  );
}

function Section({ label, children, testId }: { label: string; children: string; testId?: string }) {
  return (
    <div className="tool-section" data-testid={testId}>
      <div className="tool-section-label">{label}</div>
      <pre>{children}</pre>
    </div>
  );
}

const tail = (text: string, max: number) => (text.length > max ? `…${text.slice(-max)}` : text);
