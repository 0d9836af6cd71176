import type { TrustRepository } from "../../server/trust-store.ts";
import type { ChangeChannel } from "./change-channel.ts";
import type { Database } from "./database.ts";

/** Trust decisions in `cairn_trusted_workspaces`: trusting on one node trusts on all (each is told). */
export function createPostgresTrust(options: { sql: Database; changes: ChangeChannel; nodeId: string }): TrustRepository {
  const { sql, changes, nodeId } = options;
  return {
    async isTrusted(workspaceRoot) {
      const rows = await sql`select 1 from cairn_trusted_workspaces where workspace_root = ${workspaceRoot}`;
      return rows.length > 0;
    },
    async trust(workspaceRoot) {
      const rows = await sql`
        insert into cairn_trusted_workspaces (workspace_root, trusted_by_node) values (${workspaceRoot}, ${nodeId})
        on conflict (workspace_root) do nothing returning workspace_root`;
      if (rows.length > 0) await changes.publish({ kind: "trust", workspaceRoot }).catch(() => undefined);
    },
  };
}
