import { describe, expect, it } from "vitest";
import { BackgroundAgents, type BackgroundAgentOutcome } from "./background-agents.ts";

function deferred(): { promise: Promise<BackgroundAgentOutcome>; resolve(outcome: BackgroundAgentOutcome): void; reject(error: Error): void } {
  let resolve!: (outcome: BackgroundAgentOutcome) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<BackgroundAgentOutcome>((onResolve, onReject) => {
    resolve = onResolve;
    reject = onReject;
  });
  return { promise, resolve, reject };
}

describe("BackgroundAgents views", () => {
  it("lists an agent as running from its launch, then how it ended with its result, telling listeners each time", async () => {
    let clock = 1_000;
    const agents = new BackgroundAgents({ now: () => clock });
    const changes: string[] = [];
    agents.onChange(() =>
      changes.push(
        agents
          .views()
          .map((view) => `${view.agentId}:${view.status}`)
          .join(","),
      ),
    );
    const first = deferred();
    const second = deferred();
    agents.launch("a1", "Scan the logs", first.promise);
    agents.launch("a2", "Count the files", second.promise);
    expect(agents.views()).toEqual([
      { agentId: "a1", description: "Scan the logs", status: "running", startedAt: 1_000, endedAt: null, resultPreview: null },
      { agentId: "a2", description: "Count the files", status: "running", startedAt: 1_000, endedAt: null, resultPreview: null },
    ]);

    clock = 4_000;
    first.resolve({ status: "completed", text: "  Found 3 errors.  " });
    await agents.waitForNotification(new AbortController().signal);
    second.reject(new Error("model unavailable"));
    await new Promise((resolve) => setTimeout(resolve, 0));

    expect(agents.views()).toEqual([
      { agentId: "a1", description: "Scan the logs", status: "completed", startedAt: 1_000, endedAt: 4_000, resultPreview: "Found 3 errors." },
      { agentId: "a2", description: "Count the files", status: "failed", startedAt: 1_000, endedAt: 4_000, resultPreview: "model unavailable" },
    ]);
    expect(changes).toEqual(["a1:running", "a1:running,a2:running", "a1:completed,a2:running", "a1:completed,a2:failed"]);
    expect(agents.running()).toEqual([]);
  });

  it("cuts a long result and keeps only the newest ended agents, never a running one", async () => {
    const agents = new BackgroundAgents({ now: () => 0 });
    const forever = deferred();
    agents.launch("still-running", "Long job", forever.promise);
    for (let index = 0; index < 25; index++) agents.launch(`done-${index}`, `Job ${index}`, Promise.resolve({ status: "completed", text: "x".repeat(1_000) }));
    await new Promise((resolve) => setTimeout(resolve, 0));

    const views = agents.views();
    expect(views).toHaveLength(21);
    expect(views[0]).toMatchObject({ agentId: "still-running", status: "running" });
    expect(views[1]!.agentId).toBe("done-5");
    expect(views.at(-1)!.agentId).toBe("done-24");
    expect(views[1]!.resultPreview).toHaveLength(300);
    expect(views[1]!.resultPreview!.endsWith("…")).toBe(true);
  });
});
