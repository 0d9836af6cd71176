"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/trpc/client";
import type { TreeEntry } from "@/trpc/types";
import { FileTreeActions, type FileTreeOps } from "./file-tree-actions";
import { FileTreeItem } from "./file-tree-item";
import { dirname, indent } from "./paths";

export type FileTreeProps = FileTreeOps & {
  root: string;
  activePath: string | null;
  onOpen(path: string): void;
};

/** The workspace explorer: folders load when expanded; the watch subscription refreshes them. */
export function FileTree(props: FileTreeProps) {
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(() => new Set());
  const [selected, setSelected] = useState<TreeEntry | null>(null);
  const toggle = (path: string) =>
    setExpanded((current) => {
      const next = new Set(current);
      if (next.has(path)) next.delete(path);
      else next.add(path);
      return next;
    });
  // New entries go into the selected folder, or next to the selected file.
  const targetDir = selected ? (selected.kind === "directory" ? selected.path : parentOf(selected.path)) : props.root;
  return (
    <nav className="file-tree" data-testid="file-tree" aria-label="Workspace files">
      <FileTreeActions
        {...props}
        targetDir={targetDir}
        onCreated={(entry) => {
          setExpanded((current) => new Set(current).add(parentOf(entry.path)));
          if (entry.kind === "file") props.onOpen(entry.path);
        }}
      />
      <ul role="tree" className="file-tree-list">
        <Directory {...props} path={props.root} depth={0} expanded={expanded} selected={selected} onSelect={setSelected} onToggle={toggle} />
      </ul>
    </nav>
  );
}

const parentOf = dirname;

type DirectoryProps = FileTreeProps & {
  path: string;
  depth: number;
  expanded: ReadonlySet<string>;
  selected: TreeEntry | null;
  onSelect(entry: TreeEntry): void;
  onToggle(path: string): void;
};

function Directory(props: DirectoryProps) {
  const trpc = useTRPC();
  const tree = useQuery(trpc.workspace.tree.queryOptions({ path: props.path }));
  if (tree.isPending)
    return (
      <li className="file-tree-note" style={{ paddingLeft: indent(props.depth) }}>
        Loading…
      </li>
    );
  if (tree.isError)
    return (
      <li className="file-tree-note error" style={{ paddingLeft: indent(props.depth) }}>
        Could not list this folder: {tree.error.message}
      </li>
    );
  if (tree.data.entries.length === 0 && props.depth === 0) return <li className="file-tree-note">The workspace is empty.</li>;
  return (
    <>
      {tree.data.entries.map((entry) => {
        const isOpen = entry.kind === "directory" && props.expanded.has(entry.path);
        return (
          <li
            key={entry.path}
            role="treeitem"
            aria-expanded={entry.kind === "directory" ? isOpen : undefined}
            aria-selected={props.selected?.path === entry.path}
          >
            <FileTreeItem
              {...props}
              entry={entry}
              depth={props.depth}
              isOpen={isOpen}
              isActive={props.activePath === entry.path}
              isSelected={props.selected?.path === entry.path}
              onClick={() => {
                props.onSelect(entry);
                if (entry.kind === "directory") props.onToggle(entry.path);
                else props.onOpen(entry.path);
              }}
            />
            {isOpen ? (
              <ul role="group">
                <Directory {...props} path={entry.path} depth={props.depth + 1} />
              </ul>
            ) : null}
          </li>
        );
      })}
    </>
  );
}
