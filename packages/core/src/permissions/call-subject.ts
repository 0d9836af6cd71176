import type { Tool } from "../tools/tool.ts";
import { resolvePosix } from "./posix-path.ts";
import { editToolFamily, readToolFamily, type RuleSubject } from "./rule-matcher.ts";

/** Everything the engine reads from one call, computed once per check. */
export type CallSubject = RuleSubject & {
  isEdit: boolean;
  isRead: boolean;
  /** Set for the Bash tool. */
  command?: string;
};

function stringField(input: unknown, key: string): string | undefined {
  if (typeof input !== "object" || input === null) return undefined;
  const value = (input as Record<string, unknown>)[key];
  return typeof value === "string" ? value : undefined;
}

export function permissionToolName(tool: Pick<Tool, "name" | "mcpInfo">): string {
  return tool.mcpInfo ? `mcp__${tool.mcpInfo.serverName}__${tool.mcpInfo.toolName}` : tool.name;
}

/** The file or directory a call touches: the tool's own `getPath`, else Claude Code's field names. */
function callPath(tool: Tool, input: unknown, cwd: string): string | undefined {
  let path: string | undefined;
  try {
    path = tool.getPath?.(input);
  } catch {
    path = undefined;
  }
  path ??= stringField(input, "file_path") ?? stringField(input, "notebook_path") ?? stringField(input, "path");
  // Glob and Grep without a path search the working directory.
  if (path === undefined && (tool.name === "Glob" || tool.name === "Grep" || tool.name === "LS")) path = cwd;
  return path === undefined ? undefined : resolvePosix(cwd, path);
}

function hostnameOf(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

export function describeCall(tool: Tool, input: unknown, cwd: string): CallSubject {
  const toolName = permissionToolName(tool);
  const path = callPath(tool, input, cwd);
  const hostname = tool.name === "WebFetch" ? hostnameOf(stringField(input, "url")) : undefined;
  const subagentType = stringField(input, "subagent_type");
  const command = tool.name === "Bash" ? stringField(input, "command") : undefined;
  return {
    toolName,
    isEdit: editToolFamily.includes(tool.name),
    isRead: readToolFamily.includes(tool.name),
    ...(tool.mcpInfo ? { mcpServer: tool.mcpInfo.serverName } : {}),
    ...(path === undefined ? {} : { path }),
    ...(hostname === undefined ? {} : { hostname }),
    ...(subagentType === undefined ? {} : { subagentType }),
    ...(command === undefined ? {} : { command }),
  };
}
