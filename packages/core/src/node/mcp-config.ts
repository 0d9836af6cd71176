import { readFile } from "node:fs/promises";
import { isAbsolute, join, resolve } from "node:path";
import { mergeMcpServers, parseMcpConfigText, type McpConfigProblem, type McpServerEntry } from "../mcp/config.ts";
import { McpError } from "../mcp/errors.ts";
import type { MergedSettings } from "../permissions/settings-merge.ts";

export type LoadMcpServersOptions = {
  workspaceRoot: string;
  /** `mcpServers` from the merged settings files, each with its source. */
  settingsServers?: MergedSettings["mcpServers"];
  /** `--mcp-config` values: each a file path (relative to `cwd`) or inline JSON. */
  mcpConfig?: readonly string[];
  cwd?: string;
};

/**
 * Every configured MCP server, highest priority first per name: `--mcp-config`, then the settings
 * files (policy, `--settings`, local, project), then `<workspace>/.mcp.json`, then user settings.
 * A `--mcp-config` that cannot be read is an error (the user asked for it); a broken `.mcp.json`
 * or entry is a problem to report while the rest still starts.
 */
export async function loadMcpServers(options: LoadMcpServersOptions): Promise<{ servers: McpServerEntry[]; problems: McpConfigProblem[] }> {
  const problems: McpConfigProblem[] = [];
  const lists: McpServerEntry[][] = [];

  for (const value of options.mcpConfig ?? []) {
    const inline = value.trim().startsWith("{");
    const file = inline ? "--mcp-config" : resolvePath(options.cwd ?? options.workspaceRoot, value);
    let text = value;
    if (!inline) {
      try {
        text = await readFile(file, "utf8");
      } catch (error) {
        throw new McpError("invalid_config", `--mcp-config: cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, {
          cause: error,
        });
      }
    }
    const parsed = parseMcpConfigText(text, "dynamic", file);
    if (parsed.problems.length > 0) {
      const details = parsed.problems.map((problem) => `${problem.server ? `${problem.server}: ` : ""}${problem.message}`).join("; ");
      throw new McpError("invalid_config", `--mcp-config ${inline ? "(inline JSON)" : file}: ${details}`);
    }
    lists.push(parsed.servers);
  }

  for (const [name, { config, source }] of Object.entries(options.settingsServers ?? {})) lists.push([{ name, config, source }]);

  const projectFile = join(options.workspaceRoot, ".mcp.json");
  const projectText = await readFile(projectFile, "utf8").catch((error: NodeJS.ErrnoException) => {
    // A directory is the sandbox's stand-in for an absent .mcp.json while a shell runs: no project servers.
    if (error.code !== "ENOENT" && error.code !== "EISDIR")
      problems.push({ source: "project", file: projectFile, message: `cannot read: ${error.code ?? error.message}` });
    return undefined;
  });
  if (projectText !== undefined) {
    const parsed = parseMcpConfigText(projectText, "project", projectFile);
    problems.push(...parsed.problems);
    lists.push(parsed.servers);
  }

  return { servers: mergeMcpServers(lists), problems };
}

function resolvePath(base: string, path: string): string {
  return isAbsolute(path) ? path : resolve(base, path);
}
