"use client";

import { useState } from "react";
import type { TreeEntry } from "@/trpc/types";
import { joinPath, validName } from "./paths";

export type FileTreeOps = {
  create(path: string, kind: "file" | "directory"): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  remove(path: string): Promise<void>;
};

type Props = FileTreeOps & { root: string; targetDir: string; onCreated(entry: Pick<TreeEntry, "path" | "kind">): void };

/** The explorer's header: new file and new folder, named inline. */
export function FileTreeActions(props: Props) {
  const [creating, setCreating] = useState<"file" | "directory" | null>(null);
  const [name, setName] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async () => {
    if (!creating) return;
    const problem = validName(name);
    if (problem) return setError(problem);
    const path = joinPath(props.targetDir, name.trim());
    setBusy(true);
    try {
      await props.create(path, creating);
      props.onCreated({ path, kind: creating });
      setCreating(null);
      setName("");
      setError(null);
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    } finally {
      setBusy(false);
    }
  };

  const start = (kind: "file" | "directory") => {
    setCreating(kind);
    setName("");
    setError(null);
  };

  const where = props.targetDir === props.root ? "the workspace root" : props.targetDir.slice(props.root.length + 1);
  return (
    <div className="file-tree-header">
      <div className="panel-title-row">
        <span className="panel-title">Explorer</span>
        <span className="toolbar">
          <button type="button" className="icon-button" data-testid="file-tree-new-file" title="New file" onClick={() => start("file")}>
            + File
          </button>
          <button type="button" className="icon-button" data-testid="file-tree-new-folder" title="New folder" onClick={() => start("directory")}>
            + Folder
          </button>
        </span>
      </div>
      {creating ? (
        <form
          className="inline-form"
          onSubmit={(event) => {
            event.preventDefault();
            void submit();
          }}
        >
          <label className="sr-only" htmlFor="file-tree-new-name">
            New {creating === "file" ? "file" : "folder"} name in {where}
          </label>
          <input
            id="file-tree-new-name"
            data-testid="file-tree-new-name"
            autoFocus
            value={name}
            disabled={busy}
            placeholder={`${creating === "file" ? "file" : "folder"} name in ${where}`}
            onChange={(event) => setName(event.target.value)}
            onKeyDown={(event) => {
              if (event.key === "Escape") setCreating(null);
            }}
          />
          {error ? (
            <p className="form-error" role="alert">
              {error}
            </p>
          ) : null}
        </form>
      ) : null}
    </div>
  );
}
