import { z } from "zod";

/**
 * The `sandbox` block of the server settings: how Bash commands are confined. Keys it does not know
 * (Claude Code's own sandbox settings, say) are dropped rather than refused.
 */
export const sandboxSettingsSchema = z.object({
  /** Run every shell inside bubblewrap. `false` is the administrator's explicit choice to run unconfined. */
  enabled: z.boolean(),
  /** Let sandboxed commands reach any host through the sandbox's proxy. */
  allowNetwork: z.boolean().optional(),
  /** Hosts sandboxed commands may reach (`example.com`, `*.npmjs.org`, `127.0.0.1:8080`). */
  allowedDomains: z.array(z.string().min(1)).optional(),
  /** Extra absolute paths the sandboxed shell must not read. */
  denyRead: z.array(z.string().min(1)).optional(),
  /**
   * Refuse creating absent shell, git and editor files (`.bashrc`, `.mcp.json`, `.vscode`, …) in the
   * workspace root too. bubblewrap mounts only on an entry, so each absent one is then an empty
   * read-only directory while a sandbox runs (see policy.ts). Off by default: only `.claude` stands in.
   */
  protectMissingFiles: z.boolean().optional(),
});
export type SandboxSettings = z.infer<typeof sandboxSettingsSchema>;

export const localWorkspaceOptionsSchema = z.strictObject({
  root: z.string().min(1),
  additionalDirectories: z.array(z.string().min(1)).optional(),
  /**
   * For a linked worktree workspace: the repository directory its `.git` file points to, which the
   * sandboxed shell may write (git commits there) except its hooks and config. The file tools stay
   * confined to the root.
   */
  gitDirectories: z.array(z.string().min(1)).optional(),
  sandbox: sandboxSettingsSchema,
  /** Extra variables for the shell, laid over the scrubbed base environment. */
  env: z.record(z.string(), z.string()).optional(),
  /** Use the JavaScript search engine even when `rg` is on the PATH (tests, benchmarks). */
  forceJsSearch: z.boolean().optional(),
  /** Where the server keeps its own state; the sandbox denies reading it. Defaults to $CAIRN_HOME or ~/.cairn. */
  cairnHome: z.string().min(1).optional(),
  /** Where the workspace's private directory (the shell's HOME and TMPDIR) is made. Defaults to the OS temp dir. */
  temporaryDirectory: z.string().min(1).optional(),
});
export type LocalWorkspaceOptions = z.infer<typeof localWorkspaceOptionsSchema>;
