/** A file on disk as the server reports it. */
export type DiskFile = { path: string; content: string; mtimeMs: number; binary: boolean };

/** Why the buffer and the disk disagree in a way the user must settle. */
export type TabConflict = { kind: "changed-on-disk"; diskContent: string; diskMtimeMs: number } | { kind: "deleted-on-disk" };

export type EditorTab = {
  path: string;
  /** The content on disk that the buffer is based on. */
  savedContent: string;
  /** The buffer, as the user sees it. */
  content: string;
  /** Disk version the buffer is based on; sent with saves so the server refuses to clobber a newer file. */
  mtimeMs: number;
  binary: boolean;
  conflict: TabConflict | null;
  saving: boolean;
  /**
   * Bumped whenever the buffer is replaced from outside the editor (a reload from disk). The editor pushes
   * `content` into Monaco only when this changes; otherwise Monaco owns the text, so a render that lags
   * behind fast typing never writes an older value back.
   */
  revision: number;
};

export type TabsState = { tabs: EditorTab[]; active: string | null };

export type TabsAction =
  | { type: "opened"; file: DiskFile }
  | { type: "activated"; path: string }
  | { type: "edited"; path: string; content: string }
  | { type: "save-started"; path: string }
  | { type: "saved"; path: string; content: string; mtimeMs: number }
  | { type: "save-failed"; path: string }
  /** The file changed on disk (the agent, a terminal, another tab): reload if clean, else ask. */
  | { type: "disk-changed"; file: DiskFile }
  | { type: "disk-deleted"; path: string }
  | { type: "resolved"; path: string; choice: "reload" | "keep-mine" }
  | { type: "renamed"; from: string; to: string }
  | { type: "closed"; path: string };

export const emptyTabs = (): TabsState => ({ tabs: [], active: null });

export const isDirty = (tab: EditorTab): boolean => tab.content !== tab.savedContent;

function fromDisk(file: DiskFile, revision = 0): EditorTab {
  return {
    path: file.path,
    savedContent: file.content,
    content: file.content,
    mtimeMs: file.mtimeMs,
    binary: file.binary,
    conflict: null,
    saving: false,
    revision,
  };
}

function update(state: TabsState, path: string, change: (tab: EditorTab) => EditorTab): TabsState {
  const index = state.tabs.findIndex((tab) => tab.path === path);
  const tab = state.tabs[index];
  if (!tab) return state;
  return { ...state, tabs: state.tabs.with(index, change(tab)) };
}

const isInside = (path: string, dir: string) => path === dir || path.startsWith(`${dir}/`);

export function tabsReducer(state: TabsState, action: TabsAction): TabsState {
  switch (action.type) {
    case "opened": {
      if (state.tabs.some((tab) => tab.path === action.file.path)) return { ...state, active: action.file.path };
      return { tabs: [...state.tabs, fromDisk(action.file)], active: action.file.path };
    }
    case "activated":
      return state.tabs.some((tab) => tab.path === action.path) ? { ...state, active: action.path } : state;
    case "edited":
      return update(state, action.path, (tab) => ({ ...tab, content: action.content }));
    case "save-started":
      return update(state, action.path, (tab) => ({ ...tab, saving: true }));
    case "save-failed":
      return update(state, action.path, (tab) => ({ ...tab, saving: false }));
    case "saved":
      // The user may have typed on while the save was in flight: only what was saved is now clean.
      return update(state, action.path, (tab) => ({ ...tab, savedContent: action.content, mtimeMs: action.mtimeMs, saving: false, conflict: null }));
    case "disk-changed":
      return update(state, action.file.path, (tab) => {
        if (action.file.content === tab.savedContent) return { ...tab, mtimeMs: Math.max(tab.mtimeMs, action.file.mtimeMs), binary: action.file.binary };
        if (!isDirty(tab)) return fromDisk(action.file, tab.revision + 1);
        if (action.file.content === tab.content) return { ...tab, savedContent: action.file.content, mtimeMs: action.file.mtimeMs, conflict: null };
        return { ...tab, conflict: { kind: "changed-on-disk", diskContent: action.file.content, diskMtimeMs: action.file.mtimeMs } };
      });
    case "disk-deleted":
      return update(state, action.path, (tab) => ({ ...tab, conflict: { kind: "deleted-on-disk" } }));
    case "resolved":
      return update(state, action.path, (tab) => {
        const conflict = tab.conflict;
        if (!conflict) return tab;
        if (conflict.kind === "deleted-on-disk") {
          // "Keep mine" writes the buffer back as a new file on the next save.
          return action.choice === "keep-mine" ? { ...tab, savedContent: "", mtimeMs: 0, conflict: null } : tab;
        }
        if (action.choice === "reload") {
          return {
            ...tab,
            content: conflict.diskContent,
            savedContent: conflict.diskContent,
            mtimeMs: conflict.diskMtimeMs,
            conflict: null,
            revision: tab.revision + 1,
          };
        }
        // Keep mine: the buffer now knowingly replaces that disk version when saved.
        return { ...tab, savedContent: conflict.diskContent, mtimeMs: conflict.diskMtimeMs, conflict: null };
      });
    case "renamed": {
      const tabs = state.tabs.map((tab) => (isInside(tab.path, action.from) ? { ...tab, path: action.to + tab.path.slice(action.from.length) } : tab));
      const active = state.active && isInside(state.active, action.from) ? action.to + state.active.slice(action.from.length) : state.active;
      return { tabs, active };
    }
    case "closed": {
      const index = state.tabs.findIndex((tab) => tab.path === action.path);
      if (index === -1) return state;
      const tabs = state.tabs.filter((tab) => tab.path !== action.path);
      const active = state.active === action.path ? (tabs[Math.min(index, tabs.length - 1)]?.path ?? null) : state.active;
      return { tabs, active };
    }
  }
}
