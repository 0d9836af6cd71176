import { readFile } from "node:fs/promises";

/** User + system CPU time of a process (all its threads), from /proc (clock ticks of 10 ms). */
export async function processCpuMs(pid: number | undefined): Promise<number> {
  const fields = (await readFile(`/proc/${pid}/stat`, "utf8")).split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * Read and write system calls a process has made (`syscr` + `syscw` of /proc/<pid>/io: read/readv and
 * write/writev, which is how Node reads and writes its sockets; epoll waits are not counted). A count, so it
 * does not depend on how busy the machine is.
 */
export async function processSyscalls(pid: number | undefined): Promise<number> {
  const io = await readFile(`/proc/${pid}/io`, "utf8");
  const field = (name: string) => Number(new RegExp(`^${name}: (\\d+)$`, "m").exec(io)?.[1] ?? Number.NaN);
  return field("syscr") + field("syscw");
}
