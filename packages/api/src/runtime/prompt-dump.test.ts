import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { createPromptDumpFetch, promptDumpPath } from "./prompt-dump.ts";

const okFetch = (async () => new Response("{}")) as unknown as typeof fetch;
const post = (body: string) => ({ method: "POST", body, headers: { "x-api-key": "sk-ant-secret-key", authorization: "Bearer sk-ant-secret-token" } });

describe("prompt dump", () => {
  it("keeps only the latest Messages request body, privately, without any header", async () => {
    const home = await mkdtemp(join(tmpdir(), "cairn-dump-"));
    onTestFinished(() => rm(home, { recursive: true, force: true }));
    const path = promptDumpPath(home, "session-1");
    const dumping = createPromptDumpFetch(path, okFetch);
    await dumping("https://api.example.test/v1/messages", post('{"model":"a","messages":[1]}'));
    await dumping("https://api.example.test/v1/messages?beta=true", post('{"model":"b","messages":[2]}'));
    await dumping("https://api.example.test/v1/messages/count_tokens", post('{"model":"c"}'));
    expect(await readFile(path, "utf8")).toBe('{"model":"b","messages":[2]}');
    expect(await readdir(join(home, "debug"))).toEqual(["session-1.json"]);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(await readFile(path, "utf8")).not.toContain("sk-ant-secret");
  });

  it("names a subagent's file after its session and agent, and never lets a name leave the debug folder", () => {
    expect(promptDumpPath("/home/u/.cairn", "s1", "a0123")).toBe("/home/u/.cairn/debug/s1.a0123.json");
    expect(promptDumpPath("/home/u/.cairn", "../../etc/passwd")).toBe("/home/u/.cairn/debug/______etc_passwd.json");
  });

  it("sends the request even when the dump cannot be written", async () => {
    const home = await mkdtemp(join(tmpdir(), "cairn-dump-"));
    onTestFinished(() => rm(home, { recursive: true, force: true }));
    // `debug` is a file, so the folder cannot be made.
    await writeFile(join(home, "debug"), "in the way");
    const sent: string[] = [];
    const base = (async (_input: unknown, init?: RequestInit) => {
      sent.push(String(init?.body));
      return new Response("{}");
    }) as unknown as typeof fetch;
    const response = await createPromptDumpFetch(promptDumpPath(home, "s"), base)("http://h/v1/messages", post("{}"));
    expect(response.status).toBe(200);
    expect(sent).toEqual(["{}"]);
  });
});
