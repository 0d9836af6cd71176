import { join } from "node:path";
import type { Workspace } from "@cairn/core";
import type { ChangedFile } from "@cairn/core/node";
import { sandboxProtectedNames } from "@cairn/worker";

const protectedNames = new Set<string>(sandboxProtectedNames);

/**
 * Drops the empty placeholders the sandbox puts over protected paths that do not exist (`.bashrc`,
 * `.vscode`, …) while a sandboxed shell runs: the session did not make them and they go when it ends.
 */
export async function withoutSandboxPlaceholders(workspace: Workspace, files: readonly ChangedFile[]): Promise<ChangedFile[]> {
  const kept = await Promise.all(
    files.map(async (file) => {
      if (file.status !== "added" || !protectedNames.has(file.path)) return true;
      const stat = await workspace.stat(join(workspace.root, file.path)).catch(() => null);
      return stat !== null && stat.size > 0;
    }),
  );
  return files.filter((_, index) => kept[index]);
}
