import { readFileSync } from "node:fs";
import { statFieldsAfterCommand } from "./process-table.ts";

let ownStart: string | undefined;

/**
 * A process's start time (field 22 of /proc/<pid>/stat, clock ticks since boot), which tells it from a later process
 * given the same pid; undefined when no such process runs (or /proc cannot say).
 */
export function processStartTime(pid: number): string | undefined {
  if (pid === process.pid && ownStart !== undefined) return ownStart;
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  const started = statFieldsAfterCommand(stat)?.[19];
  if (pid === process.pid) ownStart = started;
  return started;
}
