import { z } from "zod";
import { mcpServerConfigSchema, type McpRemoteServerConfig, type McpServerConfig, type McpStdioServerConfig } from "../permissions/settings-schema.ts";

/**
 * Where a server was configured. `dynamic` is `--mcp-config`, `project` is `<workspace>/.mcp.json`;
 * the others are the settings files' `mcpServers`.
 */
export const mcpServerSources = ["dynamic", "policySettings", "flagSettings", "localSettings", "projectSettings", "project", "userSettings"] as const;
export type McpServerSource = (typeof mcpServerSources)[number];

export type { McpRemoteServerConfig, McpStdioServerConfig } from "../permissions/settings-schema.ts";

export function isStdioServerConfig(config: McpServerConfig): config is McpStdioServerConfig {
  return config.type !== "http" && config.type !== "sse";
}

export type McpServerEntry = { name: string; config: McpServerConfig; source: McpServerSource };

export type McpConfigProblem = { source: McpServerSource; file: string; server?: string; message: string };

/** Sources the workspace itself controls: their servers start only in a trusted workspace. */
export function requiresTrust(source: McpServerSource): boolean {
  return source === "project" || source === "projectSettings" || source === "localSettings";
}

const mcpConfigFileSchema = z.looseObject({ mcpServers: z.record(z.string(), z.unknown()) });

/**
 * One `{ "mcpServers": { … } }` value (the `.mcp.json` and `--mcp-config` format). Each server is
 * validated on its own: a broken entry is reported and the others still start.
 */
export function parseMcpConfigValue(value: unknown, source: McpServerSource, file: string): { servers: McpServerEntry[]; problems: McpConfigProblem[] } {
  const parsed = mcpConfigFileSchema.safeParse(value);
  if (!parsed.success) {
    return { servers: [], problems: [{ source, file, message: 'expected an object with "mcpServers": { "<name>": { … } }' }] };
  }
  const servers: McpServerEntry[] = [];
  const problems: McpConfigProblem[] = [];
  for (const [name, raw] of Object.entries(parsed.data.mcpServers)) {
    const config = mcpServerConfigSchema.safeParse(raw);
    if (!name.trim()) {
      problems.push({ source, file, message: "a server name is empty" });
    } else if (config.success) {
      servers.push({ name, config: config.data, source });
    } else {
      problems.push({ source, file, server: name, message: describeServerProblem(raw) });
    }
  }
  return { servers, problems };
}

export function parseMcpConfigText(text: string, source: McpServerSource, file: string): { servers: McpServerEntry[]; problems: McpConfigProblem[] } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { servers: [], problems: [{ source, file, message: `not valid JSON: ${(error as Error).message}` }] };
  }
  return parseMcpConfigValue(value, source, file);
}

function describeServerProblem(raw: unknown): string {
  if (typeof raw !== "object" || raw === null) return "a server must be an object";
  const type = (raw as { type?: unknown }).type;
  if (type === "http" || type === "sse") return `a ${type} server needs a "url" string (and optional "headers")`;
  if (type !== undefined && type !== "stdio") return `unknown server type ${JSON.stringify(type)}: use "stdio", "http" or "sse"`;
  return 'a stdio server needs a "command" string (and optional "args" array and "env" object)';
}

/** Merges server lists by name; the earlier source in `mcpServerSources` wins. */
export function mergeMcpServers(lists: ReadonlyArray<readonly McpServerEntry[]>): McpServerEntry[] {
  const byName = new Map<string, McpServerEntry>();
  for (const entry of lists.flat()) {
    const existing = byName.get(entry.name);
    if (!existing || mcpServerSources.indexOf(entry.source) < mcpServerSources.indexOf(existing.source)) byName.set(entry.name, entry);
  }
  return [...byName.values()];
}

/**
 * `${VAR}` and `${VAR:-default}` as Claude Code expands them. An unset variable without a default
 * stays as written and is reported, so the server fails visibly rather than with an empty value.
 */
export function expandEnvVars(value: string, env: Readonly<Record<string, string | undefined>>): { value: string; missing: string[] } {
  const missing: string[] = [];
  const expanded = value.replace(/\$\{([^}]+)\}/g, (whole, body: string) => {
    const separator = body.indexOf(":-");
    const name = separator === -1 ? body : body.slice(0, separator);
    const fallback = separator === -1 ? undefined : body.slice(separator + 2);
    const found = env[name];
    if (found !== undefined) return found;
    if (fallback !== undefined) return fallback;
    missing.push(name);
    return whole;
  });
  return { value: expanded, missing };
}

/** Expands variables in the command, args and env of a stdio server, or the url and headers of a remote one. */
export function expandServerConfig(config: McpServerConfig, env: Readonly<Record<string, string | undefined>>): { config: McpServerConfig; missing: string[] } {
  const missing = new Set<string>();
  const expand = (text: string) => {
    const result = expandEnvVars(text, env);
    for (const name of result.missing) missing.add(name);
    return result.value;
  };
  const expandRecord = (record: Record<string, string> | undefined) =>
    record === undefined ? undefined : Object.fromEntries(Object.entries(record).map(([key, text]) => [key, expand(text)]));
  if (isStdioServerConfig(config)) {
    const expandedEnv = expandRecord(config.env);
    const expanded: McpServerConfig = {
      ...config,
      command: expand(config.command),
      ...(config.args ? { args: config.args.map(expand) } : {}),
      ...(expandedEnv ? { env: expandedEnv } : {}),
    };
    return { config: expanded, missing: [...missing] };
  }
  const remote = config as McpRemoteServerConfig;
  const headers = expandRecord(remote.headers);
  return { config: { ...remote, url: expand(remote.url), ...(headers ? { headers } : {}) }, missing: [...missing] };
}

/** A short label for status lines: the command or the URL, never the env or headers (they may hold secrets). */
export function describeServer(config: McpServerConfig): string {
  if (isStdioServerConfig(config)) return [config.command, ...(config.args ?? [])].join(" ");
  const remote = config as McpRemoteServerConfig;
  return `${remote.type} ${remote.url}`;
}
