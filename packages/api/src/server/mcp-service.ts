import { isMcpError, Notifier, type McpManager, type McpServerInfo } from "@cairn/core";
import type { McpPort } from "../router/context.ts";
import { ApiError } from "../router/errors.ts";
import type { McpServerStatusView, McpServerSummary, McpServerView } from "../router/mcp-types.ts";

/** How long listing one server's resources or prompts may take before the panel shows it without them. */
const LIST_TIMEOUT_MS = 5_000;

/** The MCP panel's view of the runtime's `McpManager`: statuses, tools, resources and prompts, reconnect. */
export class McpService implements McpPort {
  private readonly manager: McpManager;

  constructor(manager: McpManager) {
    this.manager = manager;
  }

  async servers(signal: AbortSignal): Promise<McpServerView[]> {
    return Promise.all(this.manager.servers().map((server) => this.describe(server, signal)));
  }

  async reconnect(name: string, signal: AbortSignal): Promise<McpServerView> {
    try {
      return await this.describe(await this.manager.reconnect(name), signal);
    } catch (error) {
      if (isMcpError(error) && error.code === "unknown_server") throw new ApiError("mcp_server_not_found", error.message, { cause: error });
      if (isMcpError(error) && error.code === "not_connected") throw new ApiError("untrusted_workspace", error.message, { cause: error });
      throw error;
    }
  }

  /** Yields every server's name, status and tool count now, then again after each change (changes in a burst come as one). */
  async *changes(signal: AbortSignal): AsyncGenerator<McpServerSummary[]> {
    const wakeUps = new Notifier({ notified: true });
    const stop = this.manager.subscribe(() => wakeUps.notify());
    try {
      while ((await wakeUps.wait(signal)) && !signal.aborted) {
        yield this.manager.servers().map((server) => ({ name: server.name, status: statusView(server).status, toolCount: server.tools.length }));
      }
    } finally {
      stop();
    }
  }

  private async describe(server: McpServerInfo, signal: AbortSignal): Promise<McpServerView> {
    const view: McpServerView = {
      name: server.name,
      source: server.source,
      transport: server.transport,
      ...statusView(server),
      sandboxed: server.launch ? server.launch.sandboxed : null,
      tools: server.tools,
      resources: [],
      prompts: [],
    };
    if (server.status.state !== "connected") return view;
    const listSignal = AbortSignal.any([signal, AbortSignal.timeout(LIST_TIMEOUT_MS)]);
    const problems: string[] = [];
    const [resources, prompts] = await Promise.all([
      this.manager.listResources(server.name, listSignal).catch((error: unknown) => {
        problems.push(`resources: ${(error as Error).message}`);
        return [];
      }),
      this.manager.listPrompts(server.name, listSignal).catch((error: unknown) => {
        problems.push(`prompts: ${(error as Error).message}`);
        return [];
      }),
    ]);
    return {
      ...view,
      resources: resources.map((resource) => ({ uri: resource.uri, name: resource.name, ...(resource.mimeType ? { mimeType: resource.mimeType } : {}) })),
      prompts: prompts.map((prompt) => ({
        name: prompt.name,
        ...(prompt.description ? { description: prompt.description } : {}),
        arguments: (prompt.arguments ?? []).map((argument) => ({
          name: argument.name,
          ...(argument.description ? { description: argument.description } : {}),
          required: argument.required === true,
        })),
      })),
      ...(problems.length > 0 ? { listError: problems.join("; ") } : {}),
    };
  }
}

function statusView(server: McpServerInfo): { status: McpServerStatusView; reason?: string; warning?: string } {
  if (server.needsTrust) return { status: "needs-trust", reason: "starts once you trust this workspace" };
  const status = server.status;
  switch (status.state) {
    case "connecting":
    case "disabled":
      return { status: status.state };
    case "connected":
      return { status: "connected", ...(status.warning ? { warning: status.warning } : {}) };
    case "failed":
      return { status: "failed", reason: status.reason };
  }
}
