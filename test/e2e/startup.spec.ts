import { realpathSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { expect, test } from "@playwright/test";
import { startCairn, tempDir } from "./support/servers.ts";
import { writeWorkspace } from "./support/workspace-fixture.ts";

/** How long one request may take before it counts as never answered. */
const ANSWER_WITHIN_MS = 5_000;

type Outcome = { kind: "refused" } | { kind: "hung" } | { kind: "answered"; status: number; retryAfter: string | null; location: string | null };

/** A port that was free a moment ago: the server is told to use it, so it can be asked before it opens. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

/** One browser-like request for the login link; what came back, or that nothing did. */
async function ask(url: string): Promise<Outcome> {
  try {
    const response = await fetch(url, { redirect: "manual", headers: { accept: "text/html" }, signal: AbortSignal.timeout(ANSWER_WITHIN_MS) });
    await response.arrayBuffer();
    return { kind: "answered", status: response.status, retryAfter: response.headers.get("retry-after"), location: response.headers.get("location") };
  } catch (error) {
    if ((error as Error).name === "TimeoutError") return { kind: "hung" };
    if ((error as { cause?: { code?: string } }).cause?.code === "ECONNREFUSED") return { kind: "refused" };
    throw error;
  }
}

test("cairn serve answers every request at once from the moment its port opens: 503 while starting, then the IDE", async () => {
  const workspace = realpathSync(tempDir("cairn-e2e-startup-ws-"));
  writeWorkspace(workspace);
  const port = await freePort();
  let ready = false;
  const outcomes: Outcome[] = [];
  // Asks the login link from before the server exists until just after it says it is running.
  const poll = (async () => {
    let afterReady = 0;
    while (afterReady < 3) {
      if (ready) afterReady++;
      const outcome = await ask(`http://127.0.0.1:${port}/?token=startup-test-token`);
      outcomes.push(outcome);
      if (outcome.kind === "refused") await new Promise((done) => setTimeout(done, 5));
    }
  })();
  const cairn = await startCairn({ workspace, port }).finally(() => {
    ready = true;
  });
  try {
    await poll;
    expect(outcomes[0]).toEqual({ kind: "refused" });
    expect(outcomes.filter((outcome) => outcome.kind === "hung")).toEqual([]);
    const answered = outcomes.flatMap((outcome) => (outcome.kind === "answered" ? [outcome] : []));
    // While starting: 503 with Retry-After. Once ready: the normal answer for a wrong token, and never 503 again.
    const starting = answered.filter((answer) => answer.status === 503);
    expect(starting.length).toBeGreaterThan(0);
    for (const answer of starting) expect(answer.retryAfter).toBe("1");
    const firstServed = answered.findIndex((answer) => answer.status !== 503);
    expect(firstServed).toBeGreaterThan(0);
    expect(answered.slice(firstServed).map((answer) => answer.status)).toEqual(answered.slice(firstServed).map(() => 401));

    // The real token signs in.
    const login = await ask(`http://127.0.0.1:${port}/?token=${cairn.token}`);
    expect(login).toMatchObject({ kind: "answered", status: 303 });
  } finally {
    await cairn.stop();
    rmSync(workspace, { recursive: true, force: true });
  }
});
