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

/**
 * The whole machine's CPU time (all cores, in clock ticks of 10 ms, from /proc/stat): busy (everything but idle and
 * I/O wait) and in all. Busy over all between two readings is how much of the machine was in use meanwhile, whatever
 * ran: a latency figure taken while it is close to 1 measures the queue for the cores.
 */
export async function machineCpuTicks(): Promise<{ busy: number; total: number }> {
  const fields = (await readFile("/proc/stat", "utf8")).split("\n", 1)[0]!.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal (guest time is counted in user already)
  const total = fields.slice(0, 8).reduce((sum, value) => sum + value, 0);
  return { busy: total - fields[3]! - fields[4]!, total };
}
