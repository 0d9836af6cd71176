import { readdir, readFile } from "node:fs/promises";

/** The machine's processes as /proc shows them: each one's command name, and each parent's children. */
export type ProcessTable = { names: Map<number, string>; children: Map<number, number[]> };

/** Reads every `/proc/<pid>/stat` once (a process gone meanwhile is skipped). */
export async function readProcessTable(): Promise<ProcessTable> {
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
  return { names, children };
}

/** The pids of a process's direct children. */
export async function childProcesses(pid: number): Promise<number[]> {
  return (await readProcessTable()).children.get(pid) ?? [];
}
