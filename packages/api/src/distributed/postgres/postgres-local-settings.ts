import type { PermissionBehavior } from "@cairn/core/schema";
import { settingsObject, settingsWithoutRule, settingsWithRule, type LocalSettingsStore } from "../../runtime/local-settings.ts";
import type { ChangeChannel } from "./change-channel.ts";
import type { Database } from "./database.ts";

export type PostgresLocalSettingsOptions = { sql: Database; changes: ChangeChannel; workspaceRoot: string };

/**
 * The IDE-written settings layer of one workspace as a row of `cairn_local_settings` (its JSON text). A
 * change runs in one transaction holding the row (`for update`), so two nodes adding rules at once both
 * land; every node is told and reloads its settings.
 */
export function createPostgresLocalSettings(options: PostgresLocalSettingsOptions): LocalSettingsStore {
  const { sql, changes, workspaceRoot } = options;
  const location = `postgres:cairn_local_settings/${workspaceRoot}`;
  const change = async (edit: (settings: Record<string, unknown>) => Record<string, unknown> | undefined): Promise<boolean> => {
    const changed = await sql.begin(async (transaction) => {
      await transaction`insert into cairn_local_settings (workspace_root, settings) values (${workspaceRoot}, '{}') on conflict (workspace_root) do nothing`;
      const [row] = await transaction<{ settings: string }[]>`select settings from cairn_local_settings where workspace_root = ${workspaceRoot} for update`;
      const next = edit(settingsObject(row?.settings, location));
      if (next === undefined) return false;
      await transaction`update cairn_local_settings set settings = ${JSON.stringify(next, null, 2)}, updated_at = now() where workspace_root = ${workspaceRoot}`;
      return true;
    });
    if (changed) await changes.publish({ kind: "local-settings", workspaceRoot }).catch(() => undefined);
    return changed;
  };
  return {
    location,
    async read() {
      const [row] = await sql<{ settings: string }[]>`select settings from cairn_local_settings where workspace_root = ${workspaceRoot}`;
      return row?.settings;
    },
    addRule: (behavior: PermissionBehavior, rule: string) => change((settings) => settingsWithRule(settings, behavior, rule)),
    removeRule: (behavior: PermissionBehavior, rule: string) => change((settings) => settingsWithoutRule(settings, behavior, rule)),
    onChange(listener) {
      return changes.subscribe((notice) => {
        if (notice.kind === "local-settings" && notice.workspaceRoot === workspaceRoot) listener();
      });
    },
  };
}
