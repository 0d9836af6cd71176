import { readdir, readFile } from "node:fs/promises";

/** The pid of the first process named `command` below `rootPid` (breadth-first), read from /proc; undefined if there is none. */
export async function findDescendant(rootPid: number, command: string): Promise<number | undefined> {
  const children = new Map<number, number[]>();
  const names = new Map<number, string>();
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, "utf8").catch(() => "");
    // "pid (comm) state ppid …": comm may hold spaces and parentheses, so it ends at the last ')'.
    const close = stat.lastIndexOf(")");
    if (close < 0) continue;
    const pid = Number(entry);
    const parent = Number(stat.slice(close + 2).split(" ")[1]);
    names.set(pid, stat.slice(stat.indexOf("(") + 1, close));
    children.set(parent, [...(children.get(parent) ?? []), pid]);
  }
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
