import { describe, expect, it } from "vitest";
import { OutputLog } from "./output-log.ts";

async function readAll(log: OutputLog, afterSeq: number): Promise<number[]> {
  const seqs: number[] = [];
  for await (const item of log.read(afterSeq, new AbortController().signal)) seqs.push(item.seq);
  return seqs;
}

describe("OutputLog", () => {
  it("keeps the newest output within its budget and replays after a seq until the shell ended", async () => {
    const log = new OutputLog(10);
    for (const data of ["aaaa", "bbbb", "cccc", "dddd"]) log.append({ type: "data", data });
    log.append({ type: "exit", exitCode: 0, signal: null });
    log.end();
    expect(await readAll(log, 0)).toEqual([3, 4, 5]);
    expect(await readAll(log, 3)).toEqual([4, 5]);
    // An id from an earlier server: start over from what is held.
    expect(await readAll(log, 50)).toEqual([3, 4, 5]);
    expect(log.listenerCount).toBe(0);
  });

  it("wakes readers for new output and lets them go when aborted", async () => {
    const log = new OutputLog();
    const controller = new AbortController();
    const reader = log.read(0, controller.signal);
    const next = reader.next();
    log.append({ type: "data", data: "hello" });
    expect((await next).value).toEqual({ seq: 1, output: { type: "data", data: "hello" } });
    const waiting = reader.next();
    controller.abort();
    expect((await waiting).done).toBe(true);
    expect(log.listenerCount).toBe(0);
  });
});
