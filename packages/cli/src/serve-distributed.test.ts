import { describe, expect, it } from "vitest";
import { readEnv } from "./env.ts";
import { runServe, SERVE_HELP } from "./serve.ts";

async function serve(argv: string[], environment: Record<string, string> = {}) {
  let stdout = "";
  let stderr = "";
  const code = await runServe(argv, readEnv({ CAIRN_HOME: "/nonexistent-cairn-home", ...environment }), {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
  });
  return { code, stdout, stderr };
}

describe("cairn serve: distributed settings", () => {
  it("documents each flag with its environment variable", () => {
    for (const flag of [
      "--redis-url",
      "CAIRN_REDIS_URL",
      "--database-url",
      "CAIRN_DATABASE_URL",
      "--worker-url",
      "CAIRN_WORKER_URL",
      "--node-id",
      "CAIRN_NODE_ID",
      "--warm-up",
      "CAIRN_WARM_UP",
    ]) {
      expect(SERVE_HELP).toContain(flag);
    }
  });

  it("refuses a bad flag value before starting anything (exit 2), naming the setting", async () => {
    const result = await serve(["--redis-url", "http://cache:6379", "--api-only"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--redis-url / CAIRN_REDIS_URL");
  });

  it("refuses a bad environment value the same way", async () => {
    const result = await serve(["--api-only"], { CAIRN_WORKER_URL: "ws://good:1,ftp://bad:2" });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--worker-url / CAIRN_WORKER_URL");
    expect(result.stderr).toContain("ftp://bad:2");
  });

  it("refuses a --warm-up that is neither on nor off, flag or environment", async () => {
    const fromFlag = await serve(["--api-only", "--redis-url", "redis://cache:6379", "--warm-up", "maybe"]);
    expect(fromFlag.code).toBe(2);
    expect(fromFlag.stderr).toContain('--warm-up / CAIRN_WARM_UP: must be on or off (got "maybe")');
    const fromEnvironment = await serve(["--api-only"], { CAIRN_REDIS_URL: "redis://cache:6379", CAIRN_WARM_UP: "later" });
    expect(fromEnvironment.code).toBe(2);
    expect(fromEnvironment.stderr).toContain("--warm-up / CAIRN_WARM_UP");
  });

  it("reads CAIRN_NODE_ID and refuses a malformed one even when running embedded", async () => {
    const result = await serve(["--api-only"], { CAIRN_NODE_ID: "has space" });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--node-id / CAIRN_NODE_ID");
  });
});
