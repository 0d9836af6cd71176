import { readProcessTable } from "../process/process-table.ts";

/** The pid of the first process named `command` below `rootPid` (breadth-first), read from /proc; undefined if there is none. */
export async function findDescendant(rootPid: number, command: string): Promise<number | undefined> {
  const { names, children } = await readProcessTable();
  const queue = [...(children.get(rootPid) ?? [])];
  for (let pid = queue.shift(); pid !== undefined; pid = queue.shift()) {
    if (names.get(pid) === command) return pid;
    queue.push(...(children.get(pid) ?? []));
  }
  return undefined;
}

/**
 * Passes a resize of the outer pty on to the pty `script` made for the shell inside the sandbox: script applies
 * its input terminal's new size to its own pty when it gets SIGWINCH, which the kernel sends only to the outer
 * pty's foreground group (outside the sandbox's session). The pid is looked up once and kept.
 */
export function innerPtyResizer(shellPid: number): () => Promise<void> {
  let scriptPid: number | undefined;
  return async () => {
    scriptPid ??= await findDescendant(shellPid, "script");
    if (scriptPid === undefined) return;
    try {
      process.kill(scriptPid, "SIGWINCH");
    } catch {
      // Gone (the shell is exiting): look again next time.
      scriptPid = undefined;
    }
  };
}
