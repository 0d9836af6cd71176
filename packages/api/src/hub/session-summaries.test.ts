import { describe, expect, it } from "vitest";
import type { WorktreeRecord } from "../worktree/worktree-registry.ts";
import { sessionSummaries } from "./session-summaries.ts";

const stored = (sessionId: string, lastActivityAt: string, title?: string) => ({
  sessionId,
  title,
  firstPrompt: `prompt of ${sessionId}`,
  lastActivityAt,
  messageCount: 2,
});

describe("session list", () => {
  it("stored sessions, live ones in their place or added, worktrees marked, the most recent first", () => {
    const worktree: WorktreeRecord = {
      sessionId: "b",
      path: "/worktrees/b",
      branch: "cairn/b",
      base: "main",
      repository: "/repo/.git",
      createdAt: "2026-12-01T00:00:00.000Z",
    };
    const summaries = sessionSummaries(
      [stored("a", "2026-12-02T10:00:00.000Z", "Title a"), stored("b", "2026-12-02T09:00:00.000Z"), stored("c", "2026-12-02T08:00:00.000Z")],
      [
        { sessionId: "c", title: "Live c", updatedAt: "2026-12-02T11:00:00.000Z", running: true, messageCount: 5 },
        { sessionId: "d", title: "New d", updatedAt: "2026-12-02T09:30:00.000Z", running: false, messageCount: 0 },
      ],
      new Map([["b", worktree]]),
    );
    expect(summaries).toEqual([
      { sessionId: "c", title: "Live c", updatedAt: "2026-12-02T11:00:00.000Z", running: true, messageCount: 5 },
      { sessionId: "a", title: "Title a", updatedAt: "2026-12-02T10:00:00.000Z", running: false, messageCount: 2 },
      { sessionId: "d", title: "New d", updatedAt: "2026-12-02T09:30:00.000Z", running: false, messageCount: 0 },
      {
        sessionId: "b",
        title: "prompt of b",
        updatedAt: "2026-12-02T09:00:00.000Z",
        running: false,
        messageCount: 2,
        worktree: { branch: "cairn/b", base: "main", discarded: false },
      },
    ]);
  });

  it("a session followed here that another node runs is listed as stored; a session not written yet is a new session", () => {
    const summaries = sessionSummaries(
      [
        { ...stored("owned-elsewhere", "2026-12-02T10:00:00.000Z", "From the store"), running: true, messageCount: 4 },
        { sessionId: "empty", title: undefined, firstPrompt: undefined, lastActivityAt: "2026-12-02T09:00:00.000Z", messageCount: 0 },
      ],
      [
        { sessionId: "owned-elsewhere", title: "Behind", updatedAt: "2026-12-02T08:00:00.000Z", running: false, messageCount: 1 },
        { sessionId: "followed-unstored", title: "Live copy", updatedAt: "2026-12-02T07:00:00.000Z", running: false, messageCount: 0 },
      ],
      new Map(),
      new Set(["owned-elsewhere", "followed-unstored"]),
    );
    expect(summaries).toEqual([
      { sessionId: "owned-elsewhere", title: "From the store", updatedAt: "2026-12-02T10:00:00.000Z", running: true, messageCount: 4 },
      { sessionId: "empty", title: "New session", updatedAt: "2026-12-02T09:00:00.000Z", running: false, messageCount: 0 },
      { sessionId: "followed-unstored", title: "Live copy", updatedAt: "2026-12-02T07:00:00.000Z", running: false, messageCount: 0 },
    ]);
  });
});
