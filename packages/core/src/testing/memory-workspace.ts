import picomatch from "picomatch/posix";
import {
  type BackgroundJob,
  type BackgroundOutput,
  type DirEntry,
  type ExecOptions,
  type ExecResult,
  type FileStat,
  type GlobResult,
  type OutputChunk,
  type WatchEvent,
  type Workspace,
  WorkspaceError,
} from "../workspace/port.ts";
import { basenameOf, dirnameOf, isInside, joinPath, normalizePath, relativeTo, resolveFrom } from "../tools/builtin/path-utils.ts";
import { grepMemoryFiles } from "./memory-workspace-grep.ts";

/**
 * An in-memory twin of the Workspace port for unit tests: pure JS, deterministic mtimes from an
 * injected clock, symlinks that resolve like the real worker's (a link leaving the root is refused),
 * and scripted `exec`. Not a shell: each command's outcome comes from the `exec` script.
 */
export type MemoryEntry = string | Uint8Array | { symlink: string } | { directory: true };

export type ScriptedExec = {
  stdout?: string;
  stderr?: string;
  exitCode?: number | null;
  /** Emitted through `onOutput` in this order; defaults to stdout then stderr. */
  chunks?: OutputChunk[];
  /** Never finishes on its own: ends by abort (interrupted) or timeout (timedOut). */
  hang?: boolean;
  /** The shell's working directory after the command (simulates `cd` persisting per shellId). */
  cwd?: string;
};

export type ExecScript = (command: string, context: { shellId: string; cwd: string }) => ScriptedExec | Promise<ScriptedExec>;

export type MemoryWorkspaceOptions = {
  root?: string;
  /** Source of every mtime; the default ticks one second per call from a fixed epoch. */
  clock?: () => number;
  exec?: ExecScript;
};

export type ExecCall = { command: string; shellId: string; timeoutMs: number; maxOutputChars: number | undefined };

export type MemoryWorkspace = Workspace & {
  readonly execCalls: readonly ExecCall[];
  /** Test helper: the file's text, or undefined. Does not go through confinement. */
  peek(path: string): string | undefined;
};

type Node =
  | { kind: "file"; data: Uint8Array; mtimeMs: number; mode: number }
  | { kind: "directory"; mtimeMs: number; mode: number }
  | { kind: "symlink"; target: string; mtimeMs: number; mode: number };

type Job = BackgroundJob & { stdout: string; stderr: string };

const MAX_SYMLINK_HOPS = 40;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function createMemoryWorkspace(files: Record<string, MemoryEntry> = {}, options: MemoryWorkspaceOptions = {}): MemoryWorkspace {
  const root = normalizePath(options.root ?? "/workspace");
  let tick = 1_700_000_000_000;
  const clock = options.clock ?? (() => (tick += 1000));
  const nodes = new Map<string, Node>();
  const shells = new Map<string, string>();
  const jobs = new Map<string, Job>();
  const listeners = new Set<(event: WatchEvent) => void>();
  const execCalls: ExecCall[] = [];
  let jobCounter = 0;

  const ensureDirectory = (path: string): void => {
    if (path === "/") return;
    const existing = nodes.get(path);
    if (existing?.kind === "directory") return;
    if (existing) throw new WorkspaceError("not_directory", `Not a directory: ${path}`, { path });
    ensureDirectory(dirnameOf(path));
    nodes.set(path, { kind: "directory", mtimeMs: clock(), mode: 0o755 });
  };
  ensureDirectory(root);
  for (const [name, entry] of Object.entries(files)) {
    const path = resolveFrom(root, name);
    ensureDirectory(dirnameOf(path));
    if (typeof entry === "string" || entry instanceof Uint8Array) {
      nodes.set(path, { kind: "file", data: typeof entry === "string" ? encoder.encode(entry) : entry, mtimeMs: clock(), mode: 0o644 });
    } else if ("symlink" in entry) {
      nodes.set(path, { kind: "symlink", target: entry.symlink, mtimeMs: clock(), mode: 0o777 });
    } else {
      ensureDirectory(path);
    }
  }

  /** Follows every symlink on the way; the result must lie inside the root. Missing tails are kept. */
  const realpath = (input: string): string => {
    if (input.includes("\0")) throw new WorkspaceError("invalid_path", "Path contains a NUL byte", { path: input });
    let pending = resolveFrom(root, input);
    for (let hops = 0; hops <= MAX_SYMLINK_HOPS; hops++) {
      const segments = pending.split("/").filter(Boolean);
      let current = "";
      let redirected = false;
      for (let index = 0; index < segments.length; index++) {
        current = `${current}/${segments[index]}`;
        const node = nodes.get(current);
        if (node?.kind !== "symlink") continue;
        pending = joinPath(resolveFrom(dirnameOf(current), node.target), ...segments.slice(index + 1));
        redirected = true;
        break;
      }
      if (redirected) continue;
      const resolved = current === "" ? "/" : current;
      if (!isInside(root, resolved)) {
        throw new WorkspaceError("outside_workspace", `Path is outside the workspace: ${input}`, { path: input });
      }
      return resolved;
    }
    throw new WorkspaceError("invalid_path", `Too many levels of symbolic links: ${input}`, { path: input });
  };

  const statOf = (path: string, node: Node): FileStat => ({
    path,
    kind: node.kind,
    size: node.kind === "file" ? node.data.byteLength : 0,
    mtimeMs: node.mtimeMs,
    mode: node.mode,
  });

  const emit = (event: WatchEvent): void => {
    for (const listener of listeners) listener(event);
  };

  const childrenOf = (directory: string): string[] => {
    const prefix = directory === "/" ? "/" : `${directory}/`;
    return [...nodes.keys()].filter((key) => key.startsWith(prefix) && !key.slice(prefix.length).includes("/"));
  };

  const requireDirectory = (path: string): string => {
    const resolved = realpath(path);
    const node = nodes.get(resolved);
    if (!node) throw new WorkspaceError("not_found", `No such directory: ${path}`, { path });
    if (node.kind !== "directory") throw new WorkspaceError("not_directory", `Not a directory: ${path}`, { path });
    return resolved;
  };

  const filesUnder = (base: string): Array<{ path: string; node: Extract<Node, { kind: "file" }> }> => {
    const result: Array<{ path: string; node: Extract<Node, { kind: "file" }> }> = [];
    for (const [path, node] of nodes) {
      if (node.kind === "file" && isInside(base, path)) result.push({ path, node });
    }
    return result;
  };

  const truncate = (text: string, max: number | undefined): { text: string; truncated: boolean } =>
    max !== undefined && text.length > max ? { text: text.slice(0, max), truncated: true } : { text, truncated: false };

  const workspace: MemoryWorkspace = {
    root,
    execCalls,
    peek(path) {
      const node = nodes.get(resolveFrom(root, path));
      return node?.kind === "file" ? decoder.decode(node.data) : undefined;
    },
    async resolve(path) {
      return realpath(path);
    },
    async stat(path) {
      const resolved = realpath(path);
      const node = nodes.get(resolved);
      return node ? statOf(resolved, node) : null;
    },
    async readFile(path, readOptions) {
      readOptions?.signal?.throwIfAborted();
      const resolved = realpath(path);
      const node = nodes.get(resolved);
      if (!node) throw new WorkspaceError("not_found", `No such file: ${path}`, { path });
      if (node.kind !== "file") throw new WorkspaceError("is_directory", `Is a directory: ${path}`, { path });
      return node.data.slice();
    },
    async writeFile(path, data, writeOptions) {
      writeOptions?.signal?.throwIfAborted();
      const resolved = realpath(path);
      const existing = nodes.get(resolved);
      if (existing?.kind === "directory") throw new WorkspaceError("is_directory", `Is a directory: ${path}`, { path });
      ensureDirectory(dirnameOf(resolved));
      const node: Node = {
        kind: "file",
        data: typeof data === "string" ? encoder.encode(data) : data.slice(),
        mtimeMs: clock(),
        mode: existing?.mode ?? 0o644,
      };
      nodes.set(resolved, node);
      emit({ type: existing ? "change" : "rename", path: resolved });
      return statOf(resolved, node);
    },
    async list(path) {
      const directory = requireDirectory(path);
      return childrenOf(directory)
        .sort()
        .map((child): DirEntry => ({ name: basenameOf(child), path: child, kind: nodes.get(child)?.kind ?? "other" }));
    },
    async mkdir(path) {
      ensureDirectory(realpath(path));
    },
    async remove(path) {
      const resolved = realpath(path);
      if (!nodes.has(resolved)) throw new WorkspaceError("not_found", `No such file: ${path}`, { path });
      for (const key of [...nodes.keys()]) if (isInside(resolved, key)) nodes.delete(key);
      emit({ type: "rename", path: resolved });
    },
    async rename(from, to) {
      const source = realpath(from);
      const target = realpath(to);
      if (!nodes.has(source)) throw new WorkspaceError("not_found", `No such file: ${from}`, { path: from });
      ensureDirectory(dirnameOf(target));
      for (const [key, node] of [...nodes]) {
        if (!isInside(source, key)) continue;
        nodes.delete(key);
        nodes.set(target + key.slice(source.length), node);
      }
      emit({ type: "rename", path: source });
      emit({ type: "rename", path: target });
    },
    async glob(pattern, globOptions): Promise<GlobResult> {
      globOptions.signal?.throwIfAborted();
      const base = requireDirectory(globOptions.path ?? root);
      const relativePattern = pattern.startsWith("/") ? relativeTo(base, normalizePath(pattern)) : pattern;
      if (relativePattern.startsWith("/") || relativePattern.startsWith("..")) {
        throw new WorkspaceError("outside_workspace", `Pattern reaches outside the workspace: ${pattern}`, { path: pattern });
      }
      const matches = picomatch(relativePattern, { dot: true });
      const found = filesUnder(base)
        .filter((file) => matches(relativeTo(base, file.path)))
        .sort((a, b) => b.node.mtimeMs - a.node.mtimeMs || a.path.localeCompare(b.path));
      return { paths: found.slice(0, globOptions.limit).map((file) => file.path), truncated: found.length > globOptions.limit };
    },
    async grep(query, grepOptions) {
      grepOptions?.signal?.throwIfAborted();
      const base = realpath(query.path ?? root);
      const node = nodes.get(base);
      if (!node) throw new WorkspaceError("not_found", `No such file or directory: ${query.path ?? root}`, { path: query.path ?? root });
      const files = node.kind === "file" ? [{ path: base, node }] : filesUnder(base);
      return grepMemoryFiles(
        query,
        base,
        files.map((file) => ({ path: file.path, text: decoder.decode(file.node.data), mtimeMs: file.node.mtimeMs })),
      );
    },
    async exec(command, execOptions: ExecOptions): Promise<ExecResult> {
      execCalls.push({ command, shellId: execOptions.shellId, timeoutMs: execOptions.timeoutMs, maxOutputChars: execOptions.maxOutputChars });
      const cwd = shells.get(execOptions.shellId) ?? root;
      const base = { signal: null, cwd, sandboxed: false };
      if (execOptions.signal.aborted) {
        return { ...base, exitCode: null, stdout: "", stderr: "", timedOut: false, interrupted: true, truncated: false };
      }
      const script = options.exec
        ? await options.exec(command, { shellId: execOptions.shellId, cwd })
        : { stderr: `memory workspace: no script for command: ${command}\n`, exitCode: 127 };
      const chunks = script.chunks ?? [
        ...(script.stdout ? [{ stream: "stdout" as const, data: script.stdout }] : []),
        ...(script.stderr ? [{ stream: "stderr" as const, data: script.stderr }] : []),
      ];
      for (const chunk of chunks) execOptions.onOutput?.(chunk);
      const collect = (stream: OutputChunk["stream"]) =>
        chunks
          .filter((chunk) => chunk.stream === stream)
          .map((chunk) => chunk.data)
          .join("");
      const stdout = truncate(collect("stdout"), execOptions.maxOutputChars);
      const stderr = truncate(collect("stderr"), execOptions.maxOutputChars);
      const output = { stdout: stdout.text, stderr: stderr.text, truncated: stdout.truncated || stderr.truncated };
      if (script.cwd) shells.set(execOptions.shellId, resolveFrom(cwd, script.cwd));
      if (!script.hang) {
        return { ...base, ...output, cwd: shells.get(execOptions.shellId) ?? root, exitCode: script.exitCode ?? 0, timedOut: false, interrupted: false };
      }
      const ending = await new Promise<"aborted" | "timeout">((resolve) => {
        if (execOptions.signal.aborted) return resolve("aborted");
        const onAbort = () => {
          clearTimeout(timer);
          resolve("aborted");
        };
        const timer = setTimeout(() => {
          execOptions.signal.removeEventListener("abort", onAbort);
          resolve("timeout");
        }, execOptions.timeoutMs);
        execOptions.signal.addEventListener("abort", onAbort, { once: true });
      });
      return { ...base, ...output, exitCode: null, signal: "SIGKILL", timedOut: ending === "timeout", interrupted: ending === "aborted" };
    },
    async startBackground(command, backgroundOptions) {
      const id = `bash_${++jobCounter}`;
      const cwd = shells.get(backgroundOptions.shellId) ?? root;
      const script = options.exec ? await options.exec(command, { shellId: backgroundOptions.shellId, cwd }) : { exitCode: 0 };
      const job: Job = {
        id,
        command,
        startedAt: clock(),
        status: script.hang ? "running" : "exited",
        exitCode: script.hang ? null : (script.exitCode ?? 0),
        stdout: script.stdout ?? "",
        stderr: script.stderr ?? "",
      };
      jobs.set(id, job);
      const { stdout: _stdout, stderr: _stderr, ...summary } = job;
      return summary;
    },
    async readBackground(id): Promise<BackgroundOutput> {
      const job = jobs.get(id);
      if (!job) throw new WorkspaceError("not_found", `No background job with id ${id}`, { path: id });
      // Incremental, as the port says: each read hands over what was produced since the previous one.
      const output = { ...job };
      job.stdout = "";
      job.stderr = "";
      return output;
    },
    async killBackground(id) {
      const job = jobs.get(id);
      if (!job) throw new WorkspaceError("not_found", `No background job with id ${id}`, { path: id });
      if (job.status === "running") {
        job.status = "killed";
        job.exitCode = null;
      }
      const { stdout: _stdout, stderr: _stderr, ...summary } = job;
      return summary;
    },
    watch(listener, signal) {
      listeners.add(listener);
      signal.addEventListener("abort", () => listeners.delete(listener), { once: true });
    },
    async dispose() {
      listeners.clear();
      jobs.clear();
    },
  };
  return workspace;
}
