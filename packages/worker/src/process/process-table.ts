import { readdir, readFile } from "node:fs/promises";

/** The machine's processes as /proc shows them: each one's command name, and each parent's children. */
export type ProcessTable = { names: Map<number, string>; children: Map<number, number[]> };

/**
 * The fields of a `/proc/<pid>/stat` line after the command name, from the state on (the state is [0], the parent's
 * pid [1], the start time [19]): "pid (comm) state ppid …", where comm may hold spaces and parentheses, so it ends at
 * the last ')'. Undefined for a line without one.
 */
export function statFieldsAfterCommand(stat: string): string[] | undefined {
  const close = stat.lastIndexOf(")");
  return close < 0 ? undefined : stat.slice(close + 2).split(" ");
}

/** Reads every `/proc/<pid>/stat` once (a process gone meanwhile is skipped). */
export async function readProcessTable(): Promise<ProcessTable> {
  const children = new Map<number, number[]>();
  const names = new Map<number, string>();
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, "utf8").catch(() => "");
    const fields = statFieldsAfterCommand(stat);
    if (!fields) continue;
    const pid = Number(entry);
    const parent = Number(fields[1]);
    names.set(pid, stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")));
    const siblings = children.get(parent);
    if (siblings) siblings.push(pid);
    else children.set(parent, [pid]);
  }
  return { names, children };
}

/** The pids of a process's direct children. */
export async function childProcesses(pid: number): Promise<number[]> {
  return (await readProcessTable()).children.get(pid) ?? [];
}
