"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { errorMessage } from "@/lib/errors";
import { useTRPC } from "@/trpc/client";
import type { RouterOutputs } from "@/trpc/types";

type RewindMode = "files" | "conversation" | "both";
type RewindResult = RouterOutputs["session"]["rewind"];

const modes: Array<{ mode: RewindMode; label: string; detail: string }> = [
  { mode: "both", label: "Code and conversation", detail: "Restore the files and continue in a new session that ends just before this message." },
  { mode: "files", label: "Code only", detail: "Restore the files; the conversation stays as it is." },
  { mode: "conversation", label: "Conversation only", detail: "A new session ending just before this message; the files stay as they are." },
];

const effect: Record<"added" | "modified" | "deleted", string> = { added: "removed", modified: "restored", deleted: "brought back" };

type Props = {
  sessionId: string;
  messageUuid: string;
  onClose(): void;
  /** After a rewind: the new session (conversation modes), and the backup checkpoint that undoes the files. */
  onDone(result: RewindResult): void;
};

/** Rewind here: choose what goes back, see which files will change, then confirm. The files as they are now are kept in a backup checkpoint. */
export function RewindDialog({ sessionId, messageUuid, onClose, onDone }: Props) {
  const trpc = useTRPC();
  const dialog = useRef<HTMLDialogElement>(null);
  const [mode, setMode] = useState<RewindMode>("both");
  const preview = useQuery(trpc.session.rewindPreview.queryOptions({ sessionId, messageUuid }, { staleTime: 0, gcTime: 0 }));
  const rewind = useMutation(trpc.session.rewind.mutationOptions());
  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
  }, []);
  const files = preview.data?.files ?? [];
  return (
    <dialog ref={dialog} className="trust-dialog" data-testid="rewind-dialog" onClose={onClose} aria-labelledby="rewind-title">
      <h2 id="rewind-title">Rewind to just before this message</h2>
      <fieldset className="rewind-modes">
        {modes.map((option) => (
          <label key={option.mode} className="rewind-mode">
            <input
              type="radio"
              name="rewind-mode"
              value={option.mode}
              data-testid={`rewind-mode-${option.mode}`}
              checked={mode === option.mode}
              onChange={() => setMode(option.mode)}
            />
            <span>
              <strong>{option.label}</strong> <span className="muted">{option.detail}</span>
            </span>
          </label>
        ))}
      </fieldset>
      {mode !== "conversation" ? (
        <div data-testid="rewind-preview" data-count={preview.isSuccess ? files.length : ""}>
          {preview.isPending ? <p className="muted">Looking at what would change…</p> : null}
          {preview.isError ? (
            <p className="form-error" role="alert">
              Could not preview the rewind: {preview.error.message}
            </p>
          ) : null}
          {preview.data && !preview.data.available ? (
            <p className="form-error">File checkpoints are turned off on this server: only the conversation can be rewound.</p>
          ) : null}
          {preview.isSuccess && preview.data.available && files.length === 0 ? (
            <p className="muted">No file has changed since this message: the files stay as they are.</p>
          ) : null}
          {files.length > 0 ? (
            <>
              <p>These files will change (the current versions are kept in a backup checkpoint, so you can undo):</p>
              <ul className="rewind-files">
                {files.map((file) => (
                  <li key={file.path} data-testid="rewind-preview-file" data-path={file.path}>
                    <code>{file.path}</code> <span className="muted">{effect[file.status]}</span>
                  </li>
                ))}
              </ul>
            </>
          ) : null}
        </div>
      ) : null}
      {rewind.isError ? (
        <p className="form-error" role="alert" data-testid="rewind-error">
          Rewind failed: {errorMessage(rewind.error)}
        </p>
      ) : null}
      <div className="dialog-actions">
        <button type="button" onClick={() => dialog.current?.close()}>
          Cancel
        </button>
        <button
          type="button"
          className="primary"
          data-testid="rewind-confirm"
          disabled={rewind.isPending || (mode !== "conversation" && (preview.isPending || preview.data?.available === false))}
          onClick={() => rewind.mutate({ sessionId, messageUuid, mode }, { onSuccess: (result) => onDone(result) })}
        >
          Rewind
        </button>
      </div>
    </dialog>
  );
}
