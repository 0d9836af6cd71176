export { createLocalWorkspace, probeSandbox } from "./local-workspace.ts";
export { createWorkerProcessWorkspace } from "./process/worker-client.ts";
export type { WorkerProcessWorkspace, WorkerProcessOptions } from "./process/worker-client.ts";
export { sandboxSettingsSchema, localWorkspaceOptionsSchema } from "./settings.ts";
export type { SandboxSettings, LocalWorkspaceOptions } from "./settings.ts";
export type { SandboxProbe } from "./sandbox/sandbox-host.ts";
export { prepareTerminalLaunch } from "./sandbox/terminal-launch.ts";
export type { TerminalLaunch } from "./sandbox/terminal-launch.ts";
