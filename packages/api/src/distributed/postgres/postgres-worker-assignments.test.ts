import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openAssignedWorkspace } from "../../workers/assigned-workspace.ts";
import { startPrivatePostgres, type PrivateService } from "../testing/private-services.ts";
import { openDatabase, type Database } from "./database.ts";
import { migrate } from "./migrations.ts";
import { createPostgresWorkerAssignments } from "./postgres-worker-assignments.ts";

describe("workspace-to-worker assignments in PostgreSQL (private PostgreSQL)", () => {
  let database: PrivateService;
  let nodeA: Database;
  let nodeB: Database;

  beforeAll(async () => {
    database = await startPrivatePostgres();
    nodeA = openDatabase(database.url, { max: 3 });
    nodeB = openDatabase(database.url, { max: 3 });
    await migrate(nodeA);
  }, 120_000);

  afterAll(async () => {
    await nodeA?.end();
    await nodeB?.end();
    await database?.stop();
  });

  it("records the first claim; a later claim from another node gets that record back", async () => {
    const onA = createPostgresWorkerAssignments(nodeA);
    const onB = createPostgresWorkerAssignments(nodeB);
    expect(await onB.get("project")).toBeUndefined();
    const first = await onA.claim({ workspace: "project", workerUrl: "ws://w1:7400", workerWorkspace: "project", assignedByNode: "api-1" });
    expect(first).toMatchObject({ workspace: "project", workerUrl: "ws://w1:7400", workerWorkspace: "project", assignedByNode: "api-1" });
    expect(first.assignedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const second = await onB.claim({ workspace: "project", workerUrl: "ws://w2:7400", workerWorkspace: "project", assignedByNode: "api-2" });
    expect(second).toEqual(first);
    expect(await onB.get("project")).toEqual(first);
    await onB.claim({ workspace: "other", workerUrl: "ws://w1:7400", workerWorkspace: "other", assignedByNode: "api-2" });
    expect(await onA.load()).toEqual(new Map([["ws://w1:7400", 2]]));
  });

  it("two nodes opening a new workspace at once end up on the same worker, recorded once", async () => {
    const urls = ["ws://w1:7400", "ws://w2:7400", "ws://w3:7400"];
    // Both open at once (node B lists the workers in another order): one insert wins and both follow it.
    const opened: string[] = [];
    const open = async (url: string) => {
      opened.push(url);
      return { url, dispose: async () => undefined };
    };
    const [onA, onB] = await Promise.all([
      openAssignedWorkspace({ workspace: "shared", workerUrls: urls, nodeId: "api-1", assignments: createPostgresWorkerAssignments(nodeA), open }),
      openAssignedWorkspace({
        workspace: "shared",
        workerUrls: [...urls].reverse(),
        nodeId: "api-2",
        assignments: createPostgresWorkerAssignments(nodeB),
        open,
      }),
    ]);
    expect(onB.assignment).toEqual(onA.assignment);
    expect(onA.workspace.url).toBe(onA.assignment.workerUrl);
    expect(onB.workspace.url).toBe(onA.assignment.workerUrl);
    const rows = await nodeA`select worker_url, assigned_by_node from cairn_workspace_workers where workspace_root = 'shared'`;
    expect(rows).toEqual([{ worker_url: onA.assignment.workerUrl, assigned_by_node: onA.assignment.assignedByNode }]);
  });
});
