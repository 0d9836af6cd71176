import { homedir, tmpdir } from "node:os";
import { join } from "node:path";

/** The only place this package reads `process.env`: what the worker needs from the server's environment. */
export type WorkerEnv = {
  path: string;
  lang: string;
  term: string;
  home: string;
  cairnHome: string;
  tmpDir: string;
  /** The server's SSH agent, handed to `git push` only (never to the sandbox or the model). */
  sshAuthSock?: string;
};

export function readWorkerEnv(env: NodeJS.ProcessEnv = process.env): WorkerEnv {
  const home = homedir();
  return {
    path: env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
    lang: env.LANG ?? "C.UTF-8",
    term: env.TERM ?? "dumb",
    home,
    cairnHome: env.CAIRN_HOME ?? join(home, ".cairn"),
    tmpDir: tmpdir(),
    ...(env.SSH_AUTH_SOCK ? { sshAuthSock: env.SSH_AUTH_SOCK } : {}),
  };
}
