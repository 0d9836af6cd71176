import { z } from "zod";
import { sandboxSettingsSchema } from "../settings.ts";
import { protocolWorkspace } from "./protocol-workspace.ts";
import { RemoteConnection } from "./remote-connection.ts";
import type { WorkerProcessWorkspace } from "./worker-client.ts";

/** A workspace's name on a remote worker: one directory directly under the worker's `--root`. */
export const remoteWorkspaceNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/, "a remote workspace name holds letters, digits, '.', '_' and '-' (no '/', no '..')")
  .refine((name) => !name.includes(".."), "a remote workspace name may not contain '..'");

export const remoteWorkspaceOptionsSchema = z.strictObject({
  url: z.string().regex(/^wss?:\/\//, "the worker URL must start with ws:// or wss://"),
  token: z.string().min(1, "CAIRN_WORKER_TOKEN is required to reach a remote worker"),
  workspace: remoteWorkspaceNameSchema,
  sandbox: sandboxSettingsSchema,
  env: z.record(z.string(), z.string()).optional(),
  /** Extra PEM certificates to trust for `wss://` (a self-signed worker). */
  ca: z.string().optional(),
});
export type RemoteWorkspaceOptions = z.infer<typeof remoteWorkspaceOptionsSchema>;

const firstRetryMs = 100;
const maxRetryMs = 5_000;

/**
 * A Workspace held by a `cairn worker --listen` on another host, reached over a WebSocket. Calls in flight
 * when the worker dies or the socket drops fail with `worker_unavailable`; the next call reconnects, after
 * a delay that doubles (100 ms up to 5 s) while attempts keep failing. Resolves once the first connection works.
 */
export async function createRemoteWorkspace(input: RemoteWorkspaceOptions): Promise<WorkerProcessWorkspace> {
  const options = remoteWorkspaceOptionsSchema.parse(input);
  const workspaceOptions = { root: options.workspace, sandbox: options.sandbox, ...(options.env === undefined ? {} : { env: options.env }) };
  let failedAttempts = 0;
  const open = (): RemoteConnection => {
    const delayMs = failedAttempts === 0 ? 0 : Math.min(maxRetryMs, firstRetryMs * 2 ** (failedAttempts - 1));
    const connection = new RemoteConnection({ url: options.url, token: options.token, options: workspaceOptions, delayMs, ca: options.ca });
    connection.ready.then(
      () => {
        failedAttempts = 0;
      },
      () => {
        failedAttempts += 1;
      },
    );
    return connection;
  };
  const first = open();
  const root = await first.ready;
  let initial: RemoteConnection | undefined = first;
  return protocolWorkspace(root, () => {
    // The first connection, already open, serves until it dies.
    const reuse = initial;
    initial = undefined;
    return reuse ?? open();
  });
}
