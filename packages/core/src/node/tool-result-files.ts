import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join, normalize, sep } from "node:path";
import type { ToolResultFiles } from "../tools/tool-result-files.ts";

/** The session's saved tool results: `<transcript without .jsonl>/tool-results/<tool_use id>.txt`, as Claude Code keeps them. */
export function toolResultsDirectory(transcriptPath: string): string {
  return join(transcriptPath.replace(/\.jsonl$/, ""), "tool-results");
}

export function createToolResultFiles(directory: string): ToolResultFiles {
  const root = normalize(directory) + sep;
  const owns = (path: string) => {
    const normalized = normalize(path);
    return normalized.startsWith(root) && !normalized.slice(root.length).includes(sep) && normalized.endsWith(".txt");
  };
  return {
    async save(toolUseId, content) {
      await mkdir(directory, { recursive: true, mode: 0o700 });
      const path = join(directory, `${toolUseId.replace(/[^A-Za-z0-9_-]/g, "_")}.txt`);
      await writeFile(path, content, { mode: 0o600 });
      return path;
    },
    owns,
    async read(path, signal) {
      if (!owns(path)) throw new Error(`${path} is not a saved tool result of this session`);
      return readFile(path, { encoding: "utf8", signal });
    },
  };
}
