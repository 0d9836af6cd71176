import { describe, expect, it } from "vitest";
import { createNodeLogger } from "./node-logger.ts";

describe("the node's structured log", () => {
  it("writes one JSON object per line with the node id, the level as a word and an ISO time", () => {
    const lines: string[] = [];
    const log = createNodeLogger("api-7", { write: (line: string) => void lines.push(line) });
    log.warn({ service: "redis", delayMs: 200 }, "reconnecting to Redis");
    log.child({ sessionId: "s1" }).error("stream failed");
    const [first, second] = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.every((line) => line.endsWith("\n") && !line.slice(0, -1).includes("\n"))).toBe(true);
    expect(first).toMatchObject({ level: "warn", nodeId: "api-7", pid: process.pid, service: "redis", delayMs: 200, msg: "reconnecting to Redis" });
    expect(new Date(String(first?.time)).toISOString()).toBe(first?.time);
    expect(second).toMatchObject({ level: "error", nodeId: "api-7", sessionId: "s1", msg: "stream failed" });
  });
});
