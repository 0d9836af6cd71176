"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/trpc/client";
import type { RouterOutputs } from "@/trpc/types";
import styles from "./memory-panel.module.css";

type MemoryView = RouterOutputs["memory"]["get"];

/** How often the open panel re-checks (the server stats the files, so it is cheap). */
const REFRESH_MS = 5_000;

const kindLabel: Record<MemoryView["files"][number]["kind"], string> = { user: "user", project: "project", local: "local", nested: "subdirectory" };

function size(chars: number): string {
  return chars < 1_000 ? `${chars} chars` : `${(chars / 1_000).toFixed(1)}k chars`;
}

/** The memory files the session's model gets (with their sizes), the notices about them, and the skills and commands. */
export function MemoryPanel({ sessionId }: { sessionId: string | null }) {
  const trpc = useTRPC();
  const [open, setOpen] = useState(false);
  const view = useQuery({ ...trpc.memory.get.queryOptions(sessionId ? { sessionId } : undefined), refetchInterval: open ? REFRESH_MS : false });
  const data = view.data;
  const invalid = data?.problems.length ?? 0;
  const summary = view.isError
    ? "unavailable"
    : data
      ? `${data.files.length} files, ${data.skills.length} skills${invalid > 0 ? `, ${invalid} invalid` : ""}`
      : "…";
  return (
    <section className={styles.panel} data-testid="memory-panel" aria-label="Memory and skills">
      <button type="button" className={styles.toggle} aria-expanded={open} onClick={() => setOpen(!open)} data-testid="memory-panel-toggle">
        <span className={`status-dot ${invalid > 0 || (data?.notices.length ?? 0) > 0 ? "error" : "completed"}`} aria-hidden />
        Memory
        <span className={styles.counts}>{summary}</span>
      </button>
      {open ? (
        <div className={styles.body}>
          {view.isError ? <p className={styles.failed}>Could not load the memory files: {view.error.message}</p> : null}
          <p className={styles.heading}>Memory files</p>
          <ul className={styles.list} data-testid="memory-files">
            {data?.files.length === 0 ? <li className={styles.muted}>No CLAUDE.md files loaded.</li> : null}
            {data?.files.map((file) => (
              <li key={file.path} className={styles.row} data-testid="memory-file" data-path={file.path}>
                <span className={styles.path} title={file.importedFrom ? `imported by ${file.importedFrom}` : undefined}>
                  {file.path}
                </span>
                <span className={styles.meta}>
                  {kindLabel[file.kind]} · {size(file.chars)}
                  {file.truncated ? " · cut" : ""}
                </span>
              </li>
            ))}
          </ul>
          {data && data.notices.length > 0 ? (
            <ul className={styles.list} data-testid="memory-notices">
              {data.notices.map((notice) => (
                <li key={`${notice.code}:${notice.path}:${notice.message}`} className={styles.warning}>
                  {notice.message}
                </li>
              ))}
            </ul>
          ) : null}
          <p className={styles.heading}>Skills and commands</p>
          <ul className={styles.list} data-testid="skills">
            {data?.skills.length === 0 && data.problems.length === 0 ? (
              <li className={styles.muted}>No skills in .claude/skills or ~/.claude/skills.</li>
            ) : null}
            {data?.skills.map((skill) => (
              <li key={skill.path} className={styles.row} data-testid="skill" title={skill.path}>
                <span className={styles.path}>/{skill.name}</span>
                <span className={styles.muted}>{skill.description}</span>
                <span className={styles.meta}>{skill.kind === "command" ? "command" : skill.source}</span>
              </li>
            ))}
            {data?.problems.map((problem) => (
              <li key={problem.path} className={styles.failed} data-testid="skill-invalid" title={problem.path}>
                /{problem.name} is invalid: {problem.reason}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </section>
  );
}
