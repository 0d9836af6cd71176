"use client";

import { useState } from "react";
import type { TreeEntry } from "@/trpc/types";
import type { FileTreeOps } from "./file-tree-actions";
import { dirname, indent, joinPath, validName } from "./paths";

type Props = FileTreeOps & {
  entry: TreeEntry;
  depth: number;
  isOpen: boolean;
  isActive: boolean;
  isSelected: boolean;
  onClick(): void;
};

/** One row of the explorer, with inline rename and a two-step delete. */
export function FileTreeItem({ entry, depth, isOpen, isActive, isSelected, onClick, rename, remove }: Props) {
  const [renaming, setRenaming] = useState(false);
  const [name, setName] = useState(entry.name);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const parent = dirname(entry.path);

  const run = async (action: () => Promise<void>) => {
    try {
      setError(null);
      await action();
      setRenaming(false);
      setConfirmDelete(false);
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    }
  };

  const submitRename = () => {
    const problem = validName(name);
    if (problem) return setError(problem);
    if (name.trim() === entry.name) return setRenaming(false);
    void run(() => rename(entry.path, joinPath(parent, name.trim())));
  };

  const icon = entry.kind === "directory" ? (isOpen ? "▾" : "▸") : entry.kind === "symlink" ? "↪" : "·";
  return (
    <div
      className={`file-tree-item${isActive ? " active" : ""}${isSelected ? " selected" : ""}`}
      data-testid="file-tree-item"
      data-path={entry.path}
      data-kind={entry.kind}
      style={{ paddingLeft: indent(depth) }}
    >
      {renaming ? (
        <form
          className="inline-form grow"
          onSubmit={(event) => {
            event.preventDefault();
            submitRename();
          }}
        >
          <label className="sr-only" htmlFor={`rename-${entry.path}`}>
            New name for {entry.name}
          </label>
          <input
            id={`rename-${entry.path}`}
            data-testid="file-tree-rename-input"
            autoFocus
            value={name}
            onChange={(event) => setName(event.target.value)}
            onKeyDown={(event) => {
              if (event.key === "Escape") setRenaming(false);
            }}
          />
        </form>
      ) : (
        <button
          type="button"
          className="file-tree-label"
          onClick={onClick}
          onKeyDown={(event) => {
            if (event.key === "F2") setRenaming(true);
          }}
          title={entry.path}
        >
          <span className="file-tree-icon" aria-hidden>
            {icon}
          </span>
          <span className="file-tree-name">{entry.name}</span>
        </button>
      )}
      {!renaming ? (
        <span className="file-tree-row-actions">
          {confirmDelete ? (
            <>
              <button type="button" className="danger small" data-testid="file-tree-delete-confirm" onClick={() => void run(() => remove(entry.path))}>
                Delete {entry.kind === "directory" ? "folder" : "file"}?
              </button>
              <button type="button" className="small" onClick={() => setConfirmDelete(false)}>
                Cancel
              </button>
            </>
          ) : (
            <>
              <button
                type="button"
                className="icon-button small"
                data-testid="file-tree-rename"
                title="Rename (F2)"
                aria-label={`Rename ${entry.name}`}
                onClick={() => {
                  setName(entry.name);
                  setRenaming(true);
                }}
              >
                ✎
              </button>
              <button
                type="button"
                className="icon-button small"
                data-testid="file-tree-delete"
                title="Delete"
                aria-label={`Delete ${entry.name}`}
                onClick={() => setConfirmDelete(true)}
              >
                ✕
              </button>
            </>
          )}
        </span>
      ) : null}
      {error ? (
        <p className="form-error" role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}
