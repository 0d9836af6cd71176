import { describe, expect, it } from "vitest";
import { openAssignedWorkspace } from "./assigned-workspace.ts";
import { createMemoryWorkerAssignments, rankWorkers, type WorkerAssignmentStore } from "./worker-assignments.ts";

type FakeWorkspace = { url: string; name: string; disposed: boolean; dispose(): Promise<void> };

/** Workers by URL: reachable ones open, the others fail with their reason. Every attempt is recorded. */
function fakeWorkers(unreachable: Record<string, string> = {}) {
  const attempts: string[] = [];
  const opened: FakeWorkspace[] = [];
  const open = async (url: string, name: string): Promise<FakeWorkspace> => {
    attempts.push(url);
    const reason = unreachable[url];
    if (reason !== undefined) throw new Error(`Could not connect to the remote worker ${url}: ${reason}`);
    const workspace: FakeWorkspace = {
      url,
      name,
      disposed: false,
      async dispose() {
        workspace.disposed = true;
      },
    };
    opened.push(workspace);
    return workspace;
  };
  return { attempts, opened, open };
}

const urls = ["ws://w1:7400", "ws://w2:7400", "ws://w3:7400"];

describe("rankWorkers", () => {
  it("ranks the same whatever the order the URLs are given in, and spreads workspaces over the workers", () => {
    const firsts = new Set<string>();
    for (let index = 0; index < 30; index++) {
      const name = `project-${index}`;
      const ranked = rankWorkers(name, urls, new Map());
      expect(rankWorkers(name, [...urls].reverse(), new Map())).toEqual(ranked);
      expect([...ranked].sort()).toEqual([...urls].sort());
      firsts.add(ranked[0] ?? "");
    }
    expect(firsts.size).toBe(3);
  });

  it("puts the least loaded worker first", () => {
    const load = new Map([
      [urls[0] ?? "", 4],
      [urls[1] ?? "", 1],
    ]);
    expect(rankWorkers("any", urls, load)[0]).toBe(urls[2]);
    expect(rankWorkers("any", urls, load).at(-1)).toBe(urls[0]);
  });
});

describe("openAssignedWorkspace", () => {
  it("records the chosen worker and reuses the record on the next start, whatever the order of the URLs", async () => {
    const assignments = createMemoryWorkerAssignments(() => new Date("2026-12-02T07:00:00.000Z"));
    const workers = fakeWorkers();
    const first = await openAssignedWorkspace({ workspace: "project", workerUrls: urls, nodeId: "api-1", assignments, open: workers.open });
    expect(first.assignment).toEqual({
      workspace: "project",
      workerUrl: rankWorkers("project", urls, new Map())[0],
      workerWorkspace: "project",
      assignedAt: "2026-12-02T07:00:00.000Z",
      assignedByNode: "api-1",
    });
    expect(first.workspace).toMatchObject({ url: first.assignment.workerUrl, name: "project" });
    expect(await assignments.get("project")).toEqual(first.assignment);

    const again = await openAssignedWorkspace({ workspace: "project", workerUrls: [...urls].reverse(), nodeId: "api-2", assignments, open: workers.open });
    expect(again.assignment).toEqual(first.assignment);
    expect(workers.attempts).toEqual([first.assignment.workerUrl, first.assignment.workerUrl]);
  });

  it("skips a worker that does not answer for a new workspace and records the next one", async () => {
    const assignments = createMemoryWorkerAssignments();
    const [best, second] = rankWorkers("fresh", urls, new Map());
    const workers = fakeWorkers({ [best ?? ""]: "connect ECONNREFUSED" });
    const { assignment } = await openAssignedWorkspace({ workspace: "fresh", workerUrls: urls, nodeId: "api-1", assignments, open: workers.open });
    expect(assignment.workerUrl).toBe(second);
    expect(workers.attempts).toEqual([best, second]);
  });

  it("refuses with every worker's reason when none answers", async () => {
    const workers = fakeWorkers(Object.fromEntries(urls.map((url) => [url, "the worker refused the token (CAIRN_WORKER_TOKEN differs)"])));
    const assignments = createMemoryWorkerAssignments();
    const failure = openAssignedWorkspace({ workspace: "p", workerUrls: urls, nodeId: "api-1", assignments, open: workers.open });
    await expect(failure).rejects.toMatchObject({ code: "worker_unavailable", message: expect.stringContaining('No worker could open the workspace "p"') });
    await expect(failure).rejects.toThrow(/ws:\/\/w1:7400: the worker refused the token[\s\S]*ws:\/\/w2:7400[\s\S]*ws:\/\/w3:7400/);
    expect(await assignments.get("p")).toBeUndefined();
  });

  it("does not move a recorded workspace to another worker when its worker is down", async () => {
    const assignments = createMemoryWorkerAssignments();
    await assignments.claim({ workspace: "p", workerUrl: "ws://w2:7400", workerWorkspace: "p", assignedByNode: "api-0" });
    const workers = fakeWorkers({ "ws://w2:7400": "connect ECONNREFUSED 10.0.0.2:7400" });
    await expect(openAssignedWorkspace({ workspace: "p", workerUrls: urls, nodeId: "api-1", assignments, open: workers.open })).rejects.toThrow(
      /the workspace "p" is assigned to the worker ws:\/\/w2:7400 \(recorded by node api-0 at .*\), which cannot be reached: .*ECONNREFUSED/,
    );
    expect(workers.attempts).toEqual(["ws://w2:7400"]);
  });

  it("refuses a recorded worker that is no longer configured, saying how to move the workspace", async () => {
    const assignments = createMemoryWorkerAssignments();
    await assignments.claim({ workspace: "p", workerUrl: "ws://old:7400", workerWorkspace: "p", assignedByNode: "api-0" });
    const workers = fakeWorkers();
    await expect(openAssignedWorkspace({ workspace: "p", workerUrls: urls, nodeId: "api-1", assignments, open: workers.open })).rejects.toThrow(
      /ws:\/\/old:7400 .*not among the configured workers .*cairn_workspace_workers/,
    );
    expect(workers.attempts).toEqual([]);
  });

  it("follows another node's record when it won the race, and closes its own connection", async () => {
    const memory = createMemoryWorkerAssignments();
    const [best] = rankWorkers("raced", urls, new Map());
    const other = urls.find((url) => url !== best) ?? "";
    // The other node records its choice between this node's look-up and its claim.
    const racing: WorkerAssignmentStore = {
      location: "test",
      get: memory.get,
      load: memory.load,
      async claim(assignment) {
        await memory.claim({ ...assignment, workerUrl: other, assignedByNode: "api-2" });
        return memory.claim(assignment);
      },
    };
    const workers = fakeWorkers();
    const { workspace, assignment } = await openAssignedWorkspace({
      workspace: "raced",
      workerUrls: urls,
      nodeId: "api-1",
      assignments: racing,
      open: workers.open,
    });
    expect(assignment).toMatchObject({ workerUrl: other, assignedByNode: "api-2" });
    expect(workspace.url).toBe(other);
    expect(workers.opened.map((opened) => [opened.url, opened.disposed])).toEqual([
      [best, true],
      [other, false],
    ]);
  });
});
