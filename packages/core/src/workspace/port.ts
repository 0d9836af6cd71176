/**
 * The Workspace port: every side effect a built-in tool has on files or processes goes through it.
 * `@cairn/worker` implements it (in-process or across a process boundary); tests may use a temp dir.
 * Paths given to it are absolute or relative to `root`; every one is confined to the workspace after
 * following symlinks, and a path outside is refused with `WorkspaceError` code `outside_workspace`.
 */
export type FileKind = "file" | "directory" | "symlink" | "other";

export type FileStat = {
  path: string;
  kind: FileKind;
  size: number;
  mtimeMs: number;
  mode: number;
};

export type DirEntry = { name: string; path: string; kind: FileKind };

export type GrepOutputMode = "content" | "files_with_matches" | "count";

export type GrepQuery = {
  pattern: string;
  path?: string;
  glob?: string;
  type?: string;
  outputMode: GrepOutputMode;
  before?: number;
  after?: number;
  context?: number;
  lineNumbers?: boolean;
  caseInsensitive?: boolean;
  multiline?: boolean;
  headLimit?: number;
};

export type GrepResult = {
  mode: GrepOutputMode;
  /** Workspace-absolute paths for files_with_matches; `path:line` text for content; `path:count` for count. */
  lines: string[];
  files: number;
  matches: number;
  truncated: boolean;
  engine: "ripgrep" | "javascript";
};

export type GlobResult = { paths: string[]; truncated: boolean };

export type OutputChunk = { stream: "stdout" | "stderr"; data: string };

export type ExecOptions = {
  /** Commands sharing a shellId share cwd and exported variables. */
  shellId: string;
  timeoutMs: number;
  signal: AbortSignal;
  onOutput?: (chunk: OutputChunk) => void;
  maxOutputChars?: number;
};

export type ExecResult = {
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  interrupted: boolean;
  truncated: boolean;
  cwd: string;
  sandboxed: boolean;
};

export type BackgroundJob = { id: string; command: string; startedAt: number; status: "running" | "exited" | "killed"; exitCode: number | null };

/** `truncated` (additive, optional): older unread output was dropped to stay within the buffer. */
export type BackgroundOutput = BackgroundJob & { stdout: string; stderr: string; truncated?: boolean };

export type WatchEvent = { type: "change" | "rename"; path: string };

export interface Workspace {
  readonly root: string;
  /** Resolves to a real, confined absolute path; throws WorkspaceError otherwise. */
  resolve(path: string): Promise<string>;
  stat(path: string): Promise<FileStat | null>;
  readFile(path: string, options?: { signal?: AbortSignal }): Promise<Uint8Array>;
  /** Atomic (temp file + rename), keeps the file's mode. Creates parent directories. */
  writeFile(path: string, data: string | Uint8Array, options?: { signal?: AbortSignal }): Promise<FileStat>;
  list(path: string): Promise<DirEntry[]>;
  mkdir(path: string): Promise<void>;
  remove(path: string): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  glob(pattern: string, options: { path?: string; limit: number; signal?: AbortSignal }): Promise<GlobResult>;
  grep(query: GrepQuery, options?: { signal?: AbortSignal }): Promise<GrepResult>;
  exec(command: string, options: ExecOptions): Promise<ExecResult>;
  startBackground(command: string, options: { shellId: string }): Promise<BackgroundJob>;
  /** The output the job produced since the previous read (like Claude Code's BashOutput), and its status. */
  readBackground(id: string): Promise<BackgroundOutput>;
  killBackground(id: string): Promise<BackgroundJob>;
  watch(listener: (event: WatchEvent) => void, signal: AbortSignal): void;
  dispose(): Promise<void>;
}

export const workspaceErrorCodes = [
  "outside_workspace",
  "not_found",
  "is_directory",
  "not_directory",
  "invalid_path",
  "too_large",
  "sandbox_unavailable",
  "worker_unavailable",
  "io_error",
  /** A grep regular expression, glob or file type that cannot be used (additive). */
  "invalid_pattern",
  /** A request whose parameters are malformed (a worker protocol call with bad params; additive). */
  "invalid_request",
] as const;
export type WorkspaceErrorCode = (typeof workspaceErrorCodes)[number];

export class WorkspaceError extends Error {
  override readonly name = "WorkspaceError";
  readonly code: WorkspaceErrorCode;
  readonly path: string | undefined;

  constructor(code: WorkspaceErrorCode, message: string, options: { path?: string; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.code = code;
    this.path = options.path;
  }
}
