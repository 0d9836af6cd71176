import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

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

/** Wall time, and user+system CPU of the process and its children, via bash's `times` (its stderr to `stderrFile` in the temp dir). */
export function timedRun(
  args: string[],
  cwd: string,
  env: Record<string, string>,
  stderrFile = "cairn-bench-stderr",
): Promise<{ wallMs: number; cpuMs: number }> {
  return new Promise((resolve, reject) => {
    const quoted = [process.execPath, ...args].map((arg) => `'${arg.replaceAll("'", "'\\''")}'`).join(" ");
    const started = performance.now();
    const child = spawn("bash", ["-c", `${quoted} >/dev/null 2>'${join(tmpdir(), stderrFile)}'; code=$?; times; exit $code`], {
      cwd,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/root", CAIRN_FROM_BUNDLE: "1", ...env },
    });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.on("close", (code) => {
      const wallMs = performance.now() - started;
      if (code !== 0) return reject(new Error(`${args.join(" ")} exited with ${code}`));
      // `times` prints the shell's own times, then its children's: "0m0.812s 0m0.143s".
      const lines = out.trim().split("\n");
      const seconds = [...(lines.at(-1) ?? "").matchAll(/(\d+)m([\d.]+)s/g)].map((match) => Number(match[1]) * 60 + Number(match[2]));
      resolve({ wallMs, cpuMs: ((seconds[0] ?? 0) + (seconds[1] ?? 0)) * 1000 });
    });
  });
}
