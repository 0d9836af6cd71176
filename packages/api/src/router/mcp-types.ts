import type { McpServerSource, McpTransportKind } from "@cairn/core";

/** What the MCP panel shows as a server's state. `needs-trust`: a project server waiting for the workspace to be trusted. */
export type McpServerStatusView = "connecting" | "connected" | "failed" | "disabled" | "needs-trust";

export type McpServerView = {
  name: string;
  /** Where it was configured: `project` is `.mcp.json`, `dynamic` is `--mcp-config`, the others are settings files. */
  source: McpServerSource;
  transport: McpTransportKind;
  status: McpServerStatusView;
  /** Why it failed, or why it waits. */
  reason?: string;
  /** Connected, but with something to know, e.g. a stdio server running outside the sandbox. */
  warning?: string;
  /** Stdio servers: whether the process runs in the sandbox; null for remote servers and servers not started. */
  sandboxed: boolean | null;
  /** The server's own tool names (the model sees them as `mcp__<server>__<tool>`). */
  tools: string[];
  resources: Array<{ uri: string; name: string; mimeType?: string }>;
  prompts: Array<{ name: string; description?: string; arguments: Array<{ name: string; description?: string; required: boolean }> }>;
  /** Listing resources or prompts failed (the rest of the entry is still right). */
  listError?: string;
};

/** What `mcp.changes` yields per server: enough to tell that something moved (status, or the tool list). */
export type McpServerSummary = { name: string; status: McpServerStatusView; toolCount: number };
