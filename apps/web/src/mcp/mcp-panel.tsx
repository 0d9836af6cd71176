"use client";

import { useState, type ReactNode } from "react";
import type { RouterOutputs } from "@/trpc/types";
import styles from "./mcp-panel.module.css";
import { useMcpServers } from "./use-mcp-servers";

type McpServer = RouterOutputs["mcp"]["servers"][number];
type McpStatus = McpServer["status"];

const dotClass: Record<McpStatus, string> = {
  connected: "completed",
  connecting: "running",
  failed: "error",
  disabled: "pending",
  "needs-trust": "pending",
};

const statusLabel: Record<McpStatus, string> = {
  connected: "connected",
  connecting: "connecting…",
  failed: "failed",
  disabled: "disabled",
  "needs-trust": "needs trust",
};

const sourceLabel: Record<string, string> = {
  dynamic: "--mcp-config",
  project: ".mcp.json",
  projectSettings: ".claude/settings.json",
  localSettings: ".claude/settings.local.json",
  userSettings: "user settings",
  policySettings: "managed policy",
  flagSettings: "--settings",
};

/** The MCP servers of this workspace in the sidebar: status, tools, resources and prompts, and a reconnect button. */
export function McpPanel() {
  const { servers, reconnect } = useMcpServers();
  const [open, setOpen] = useState(false);
  const list = servers.data ?? [];
  const failed = list.filter((server) => server.status === "failed").length;
  const connected = list.filter((server) => server.status === "connected").length;
  const summary = servers.isError
    ? "unavailable"
    : list.length === 0
      ? "none"
      : `${connected}/${list.length} connected${failed > 0 ? `, ${failed} failed` : ""}`;
  return (
    <section className={styles.panel} data-testid="mcp-panel" aria-label="MCP servers">
      <button type="button" className={styles.toggle} aria-expanded={open} onClick={() => setOpen(!open)} data-testid="mcp-panel-toggle">
        <span className={`status-dot ${failed > 0 ? "error" : connected > 0 ? "completed" : "pending"}`} aria-hidden />
        MCP servers
        <span className={styles.counts}>{summary}</span>
      </button>
      {open ? (
        <ul className={styles.list}>
          {servers.isPending ? <li className={styles.detail}>Loading…</li> : null}
          {servers.isError ? <li className={styles.failed}>Could not load the MCP servers: {servers.error.message}</li> : null}
          {servers.data?.length === 0 ? (
            <li className={styles.detail}>No MCP servers configured. Add them to .mcp.json or mcpServers in the settings.</li>
          ) : null}
          {list.map((server) => (
            <McpServerEntry
              key={server.name}
              server={server}
              reconnecting={reconnect.isPending && reconnect.variables?.name === server.name}
              onReconnect={() => reconnect.mutate({ name: server.name })}
            />
          ))}
          {reconnect.isError ? <li className={styles.failed}>Reconnect failed: {reconnect.error.message}</li> : null}
        </ul>
      ) : null}
    </section>
  );
}

function McpServerEntry({ server, reconnecting, onReconnect }: { server: McpServer; reconnecting: boolean; onReconnect: () => void }) {
  const canReconnect = server.status !== "needs-trust" && server.status !== "disabled";
  const where = `${server.transport} · ${sourceLabel[server.source] ?? server.source}${server.sandboxed === true ? " · sandboxed" : ""}`;
  return (
    <li className={styles.server} data-testid="mcp-server" data-server={server.name} data-status={server.status}>
      <div className={styles.row}>
        <span className={`status-dot ${dotClass[server.status]}`} aria-hidden />
        <span className={styles.name} title={server.name}>
          {server.name}
        </span>
        <span className={styles.state}>{statusLabel[server.status]}</span>
      </div>
      <div className={`${styles.row} ${styles.detail}`}>
        <span>{where}</span>
        {canReconnect ? (
          <button
            type="button"
            className={`small ${styles.reconnect}`}
            onClick={onReconnect}
            disabled={reconnecting}
            data-testid="mcp-reconnect"
            title={`Reconnect ${server.name}`}
          >
            {reconnecting ? "…" : "Reconnect"}
          </button>
        ) : null}
      </div>
      {server.reason ? <div className={server.status === "failed" ? styles.failed : styles.detail}>{server.reason}</div> : null}
      {server.warning ? (
        <div className={styles.warning} data-testid="mcp-warning">
          {server.warning}
        </div>
      ) : null}
      {server.listError ? <div className={styles.warning}>{server.listError}</div> : null}
      <Section title="Tools" count={server.tools.length} testId="mcp-tools">
        {server.tools.map((tool) => (
          <li key={tool} className={styles.code} title={`mcp__${server.name}__${tool}`}>
            {tool}
          </li>
        ))}
      </Section>
      <Section title="Resources" count={server.resources.length} testId="mcp-resources">
        {server.resources.map((resource) => (
          <li key={resource.uri} title={resource.uri}>
            {resource.name} <span className={`${styles.code} muted`}>{resource.uri}</span>
            {resource.mimeType ? <span className="muted"> · {resource.mimeType}</span> : null}
          </li>
        ))}
      </Section>
      <Section title="Prompts" count={server.prompts.length} testId="mcp-prompts">
        {server.prompts.map((prompt) => (
          <li key={prompt.name} title={prompt.description}>
            <span className={styles.code}>{prompt.name}</span>
            {prompt.arguments.length > 0 ? (
              <span className="muted"> ({prompt.arguments.map((argument) => `${argument.name}${argument.required ? "" : "?"}`).join(", ")})</span>
            ) : null}
            {prompt.description ? <span className="muted"> — {prompt.description}</span> : null}
          </li>
        ))}
      </Section>
    </li>
  );
}

function Section({ title, count, testId, children }: { title: string; count: number; testId: string; children: ReactNode }) {
  if (count === 0) return null;
  return (
    <details className={styles.section} data-testid={testId}>
      <summary>
        {title} ({count})
      </summary>
      <ul className={styles.items}>{children}</ul>
    </details>
  );
}
