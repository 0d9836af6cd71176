"use client";

import type { PermissionMode } from "@cairn/core/schema";
import { useMutation, useQuery } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import type { ChatItem } from "./chat-types";
import { useSessionChat } from "./use-session-chat";
import { cairnErrorCode, errorMessage } from "@/lib/errors";
import { useTRPC } from "@/trpc/client";
import type { PermissionAnswer } from "@/trpc/types";
import { PermissionPrompt } from "../permission/permission-prompt";
import { ChatInput } from "./chat-input";
import { ContextMeter } from "./context-meter";
import { preloadMarkdown } from "./markdown-lazy";
import { MessageList } from "./message-list";
import { ModeModelControls } from "../session/mode-model-controls";
import { SessionBar } from "../session/session-bar";
import { TodoList } from "./todo-list";
import { BackgroundAgents } from "./background-agents";
import { SessionCost } from "./session-cost-view";
import { RewindDialog } from "../review/rewind-dialog";
import { NotifyToggle } from "../notify/notify-toggle";
import { useAttention } from "../notify/use-attention";
import { WorktreeBar } from "../worktree/worktree-bar";
import { WorktreeStartNotice } from "../worktree/worktree-start-notice";

type Props = {
  sessionId: string | null;
  defaultModel: string;
  onSessionChange(sessionId: string | null): void;
  onOpenFile(path: string): void;
  /** A run ended (or the session changed): panels fed from the session's files refresh. */
  onRunSettled?(): void;
};

/** The agent: conversation, permission questions, todos, context, mode and model, sessions. */
export function ChatPanel({ sessionId, defaultModel, onSessionChange, onOpenFile, onRunSettled }: Props) {
  const trpc = useTRPC();
  const created = useRef(new Set<string>());
  const attention = useAttention();
  const { state, status, failure, showPrompt } = useSessionChat(sessionId, { isNew: (id) => created.current.has(id), onLiveEvent: attention.onEvent });
  const [actionError, setActionError] = useState<string | null>(null);
  const [rewindAt, setRewindAt] = useState<string | null>(null);
  /** `sessionId`: the session rewound, whose checkout (a worktree's, perhaps) holds the backup. */
  const [rewound, setRewound] = useState<{ backup: string | null; text: string; sessionId: string } | null>(null);
  const restore = useMutation(trpc.session.restoreCheckpoint.mutationOptions());
  const [commandOutput, setCommandOutput] = useState<string | null>(null);
  const memory = useQuery(trpc.memory.get.queryOptions(sessionId ? { sessionId } : undefined));
  const create = useMutation(trpc.session.create.mutationOptions());
  const createWorktree = useMutation(trpc.worktree.create.mutationOptions());
  const [worktreeFailure, setWorktreeFailure] = useState<{ message: string; notRepository: boolean } | null>(null);
  const send = useMutation(trpc.session.send.mutationOptions());
  const interrupt = useMutation(trpc.session.interrupt.mutationOptions());
  const setMode = useMutation(trpc.session.setMode.mutationOptions());
  const setModel = useMutation(trpc.session.setModel.mutationOptions());
  const compact = useMutation(trpc.session.compact.mutationOptions());
  const fork = useMutation(trpc.session.fork.mutationOptions());
  const respond = useMutation(trpc.permission.respond.mutationOptions());
  const addRule = useMutation(trpc.settings.addRule.mutationOptions());

  /** Sessions made here are read from their first event (see useSessionChat). */
  const startNew = async (): Promise<string> => {
    const { sessionId: id } = await create.mutateAsync(undefined);
    created.current.add(id);
    onSessionChange(id);
    return id;
  };

  const startInWorktree = async () => {
    setWorktreeFailure(null);
    try {
      const { sessionId: id } = await createWorktree.mutateAsync(undefined);
      created.current.add(id);
      onSessionChange(id);
    } catch (error) {
      setWorktreeFailure({ message: errorMessage(error), notRepository: cairnErrorCode(error) === "not_a_repository" });
    }
  };

  useEffect(preloadMarkdown, []);

  // biome-ignore lint/correctness/useExhaustiveDependencies: a run that ends (or another session) is the trigger
  useEffect(() => {
    if (!state.running) onRunSettled?.();
  }, [state.running, sessionId]);

  // A session that no longer exists (server restarted without its transcript) is let go of.
  useEffect(() => {
    if (failure?.notFound) onSessionChange(null);
  }, [failure, onSessionChange]);

  const report = (action: string) => (error: unknown) => setActionError(`${action} failed: ${errorMessage(error)}`);

  const onSend = async (prompt: string): Promise<boolean> => {
    setActionError(null);
    setCommandOutput(null);
    // A slash command is answered by the server (a built-in) or becomes the skill's text there.
    const isCommand = /^\/[\w.:-]+(\s|$)/.test(prompt);
    try {
      let target = sessionId;
      if (!target) target = await startNew();
      else if (!state.running && !isCommand) showPrompt(prompt);
      const result = await send.mutateAsync({ sessionId: target, prompt });
      if (result.command) {
        setCommandOutput(result.command.message);
        if (result.command.sessionId) {
          created.current.add(result.command.sessionId);
          onSessionChange(result.command.sessionId);
        }
      }
      return true;
    } catch (error) {
      setActionError(isCommand ? errorMessage(error) : `Sending failed: ${errorMessage(error)}`);
      return false;
    }
  };

  const onInterrupt = () => {
    if (sessionId) interrupt.mutate({ sessionId }, { onError: report("Interrupting") });
  };

  // Esc interrupts a running prompt from anywhere on the page except inside the editor (Monaco uses Esc itself).
  useEffect(() => {
    if (!state.running || !sessionId) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== "Escape" || event.defaultPrevented) return;
      const target = event.target instanceof Element ? event.target : null;
      if (target?.closest(".monaco-editor, .permission-prompt, .xterm, dialog")) return;
      interrupt.mutate({ sessionId }, { onError: report("Interrupting") });
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  });

  const forkAt = (messageUuid: string) => {
    if (!sessionId) return;
    fork.mutate({ sessionId, messageUuid }, { onSuccess: (result) => onSessionChange(result.sessionId), onError: report("Forking") });
  };
  const request = state.permissionRequests[0];

  return (
    <section className="chat-panel" data-testid="chat" data-session-id={sessionId ?? ""} data-running={state.running} data-stream={status}>
      <SessionBar
        activeSessionId={sessionId}
        title={sessionId ? (state.items.find((item) => item.kind === "user")?.text.slice(0, 60) ?? "New session") : "No session yet"}
        canFork={Boolean(sessionId && forkUuid(state.items))}
        onSelect={onSessionChange}
        onNew={() => void startNew().catch(report("Creating a session"))}
        onNewWorktree={() => void startInWorktree()}
        creatingWorktree={createWorktree.isPending}
        onFork={() => {
          const uuid = forkUuid(state.items);
          if (uuid) forkAt(uuid);
        }}
      />
      {worktreeFailure ? (
        <WorktreeStartNotice message={worktreeFailure.message} notRepository={worktreeFailure.notRepository} onDismiss={() => setWorktreeFailure(null)} />
      ) : null}
      {sessionId ? <WorktreeBar sessionId={sessionId} running={state.running} /> : null}
      <div className="chat-controls">
        <ModeModelControls
          mode={state.permissionMode}
          model={state.model || defaultModel}
          disabled={!sessionId}
          onMode={(mode: PermissionMode) => sessionId && setMode.mutate({ sessionId, mode }, { onError: report("Changing the mode") })}
          onModel={(model) => sessionId && setModel.mutate({ sessionId, model }, { onError: report("Changing the model") })}
        />
        <ContextMeter
          tokens={state.contextTokens}
          window={state.contextWindow}
          compactions={state.compactions}
          compacting={compact.isPending}
          {...(sessionId && !state.running ? { onCompact: () => compact.mutate({ sessionId }, { onError: report("Compacting") }) } : {})}
        />
        <SessionCost items={state.items} toolCalls={state.toolCalls} />
        <NotifyToggle enabled={attention.enabled} permission={attention.permission} onChange={(next) => void attention.setEnabled(next)} />
      </div>
      {status === "reconnecting" ? (
        <div className="notice-bar warning" data-testid="stream-reconnecting">
          Connection lost; reconnecting…
        </div>
      ) : null}
      {failure && !failure.notFound ? (
        <div className="notice-bar error" role="alert">
          The session stream failed: {failure.message}
        </div>
      ) : null}
      <MessageList
        items={state.items}
        toolCalls={state.toolCalls}
        onOpenFile={onOpenFile}
        onFork={sessionId ? forkAt : undefined}
        onRewind={sessionId ? setRewindAt : undefined}
        onAllowRule={sessionId ? async (rule) => void (await addRule.mutateAsync({ scope: "session", sessionId, behavior: "allow", rule })) : undefined}
        empty={<p className="muted">Ask the agent to read, search, edit or run code in this workspace.</p>}
      />
      <TodoList todos={state.todos} />
      <BackgroundAgents agents={state.backgroundAgents} />
      {request && sessionId ? (
        <PermissionPrompt
          key={request.requestId}
          request={request}
          pendingCount={state.permissionRequests.length}
          onRespond={async (answer: PermissionAnswer) => {
            await respond.mutateAsync({ sessionId, requestId: request.requestId, answer });
          }}
        />
      ) : null}
      {rewindAt && sessionId ? (
        <RewindDialog
          sessionId={sessionId}
          messageUuid={rewindAt}
          onClose={() => setRewindAt(null)}
          onDone={(result) => {
            setRewindAt(null);
            const files = result.restoredCheckpoint ? "Files restored" : result.sessionId ? "" : "No file had changed since that message";
            const conversation = result.sessionId ? "continuing in a new session that ends just before that message" : "";
            setRewound({ backup: result.backupCheckpoint, text: [files, conversation].filter(Boolean).join("; "), sessionId });
            if (result.sessionId) onSessionChange(result.sessionId);
          }}
        />
      ) : null}
      {rewound ? (
        <div className="notice-bar info" role="status" data-testid="rewind-done">
          <span>Rewound: {rewound.text}.</span>
          <span className="toolbar">
            {rewound.backup ? (
              <button
                type="button"
                className="small"
                data-testid="rewind-undo"
                disabled={restore.isPending}
                title="Put the files back as they were just before the rewind"
                onClick={() =>
                  rewound.backup &&
                  restore.mutate(
                    { commit: rewound.backup, sessionId: rewound.sessionId },
                    {
                      onSuccess: () =>
                        setRewound({ backup: null, text: "undone; the files are back as they were before the rewind", sessionId: rewound.sessionId }),
                      onError: report("Undoing the rewind"),
                    },
                  )
                }
              >
                Undo file rewind
              </button>
            ) : null}
            <button type="button" className="small" onClick={() => setRewound(null)}>
              Dismiss
            </button>
          </span>
        </div>
      ) : null}
      {commandOutput ? (
        <div className="notice-bar" role="status" data-testid="command-output">
          <pre className="command-output">{commandOutput}</pre>
          <button type="button" className="small" onClick={() => setCommandOutput(null)}>
            Dismiss
          </button>
        </div>
      ) : null}
      {actionError ? (
        <div className="notice-bar error" role="alert" data-testid="chat-action-error">
          <span>{actionError}</span>
          <button type="button" className="small" onClick={() => setActionError(null)}>
            Dismiss
          </button>
        </div>
      ) : null}
      <ChatInput
        running={state.running}
        commands={memory.data?.commands ?? []}
        queued={state.queued}
        disabled={status === "loading" && Boolean(sessionId)}
        onSend={onSend}
        onInterrupt={onInterrupt}
      />
    </section>
  );
}

/** Fork at the latest message the server knows (user prompts carry uuids; assistant items are keyed by message id). */
function forkUuid(items: readonly ChatItem[]): string | undefined {
  for (let index = items.length - 1; index >= 0; index--) {
    const item = items[index];
    if (item?.kind === "user" && !item.id.startsWith("local:")) return item.id;
    if (item?.kind === "assistant" && item.uuid) return item.uuid;
  }
  return undefined;
}
