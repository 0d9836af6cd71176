import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { startServer, type CairnServer } from "@cairn/api";
import { startPrivatePostgres, startPrivateRedis, type PrivateService } from "@cairn/api/distributed-testing";
import { startModelSim, type ModelSim, type Scenario } from "@cairn/model-sim";
import { startApiNode, type ApiNodeOptions, type ApiNodeProcess } from "../support/api-node-process.ts";
import { localWorkerScript } from "../support/cli.ts";
import { EventsSubscriber } from "./api-harness.ts";

/**
 * What a distributed test runs against: a private PostgreSQL (and Redis when asked for), the model simulator, and a
 * folder (`parent`) holding the workspace the nodes share, with a README.md, and each node's home.
 */
export type DistributedServices<WithRedis extends PrivateService | undefined = PrivateService> = {
  database: PrivateService;
  redis: WithRedis;
  sim: ModelSim;
  parent: string;
  workspace: string;
  /** Stops the simulator and the servers and removes the folder; stop the nodes first. */
  stop(): Promise<void>;
};

type ServicesOptions = {
  /** Names the folder: `cairn-dist-<name>-XXXXXX`. */
  name: string;
  readme?: string;
  /** The simulator's script; given the workspace, for turns that name files in it. */
  scenario: Scenario | ((workspace: string) => Scenario);
};

export function startDistributedServices(options: ServicesOptions & { redis: false }): Promise<DistributedServices<undefined>>;
export function startDistributedServices(options: ServicesOptions & { redis?: true }): Promise<DistributedServices>;
export async function startDistributedServices(options: ServicesOptions & { redis?: boolean }): Promise<DistributedServices<PrivateService | undefined>> {
  const parent = await realpath(await mkdtemp(join(tmpdir(), `cairn-dist-${options.name}-`)));
  const workspace = join(parent, "ws");
  const started: Array<{ stop(): Promise<void> }> = [];
  const stop = async () => {
    await Promise.all(started.map((service) => service.stop()));
    await rm(parent, { recursive: true, force: true });
  };
  try {
    await mkdir(workspace);
    await writeFile(join(workspace, "README.md"), options.readme ?? "# shared workspace\n");
    // Each server is noted as soon as it is up, so a failure of the other still stops it.
    const noted = <Service extends { stop(): Promise<void> }>(service: Service): Service => {
      started.push(service);
      return service;
    };
    const [database, redis] = await Promise.all([startPrivatePostgres().then(noted), options.redis === false ? undefined : startPrivateRedis().then(noted)]);
    const sim = await startModelSim({ scenario: typeof options.scenario === "function" ? options.scenario(workspace) : options.scenario });
    started.push({ stop: () => sim.close() });
    return { database, redis, sim, parent, workspace, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * An API node in this process, over the services (Redis only if they have it), with a home of its own under `parent`;
 * `token` is its CAIRN_TOKEN (the cluster's; without it the node makes one of its own).
 */
export async function startInProcessNode(services: DistributedServices<PrivateService | undefined>, nodeId: string, token?: string): Promise<CairnServer> {
  const home = join(services.parent, `home-${nodeId}`);
  await mkdir(home);
  return startServer({
    workerScript: localWorkerScript,
    workspace: services.workspace,
    cairnHome: home,
    version: "0.0.0-test",
    apiKey: "test",
    baseURL: services.sim.url,
    model: "sim-model",
    port: 0,
    webDir: null,
    checkpoints: false,
    managedSettingsPath: join(services.parent, "no-managed-settings.json"),
    maxRetries: 1,
    promptCaching: false,
    distributed: { databaseUrl: services.database.url, redisUrl: services.redis?.url, workerUrls: [], nodeId },
    ...(token !== undefined ? { token } : {}),
  });
}

/** API nodes as separate processes (to be killed or paused) and the tabs that follow sessions on them. */
export type NodeProcesses = {
  readonly nodes: ApiNodeProcess[];
  start(nodeId: string, options?: Pick<ApiNodeOptions, "drainTimeoutMs">): Promise<ApiNodeProcess>;
  /** The node started as `nodeId`, or a new one of that id. */
  reuse(nodeId: string): Promise<ApiNodeProcess>;
  follow(node: ApiNodeProcess, sessionId: string): EventsSubscriber;
  /** Stops every tab, wakes any paused node and kills every node. */
  stopAll(): Promise<void>;
};

export function nodeProcesses(services: DistributedServices, defaults: Pick<ApiNodeOptions, "leaseTtlMs"> = {}): NodeProcesses {
  const nodes: ApiNodeProcess[] = [];
  const tabs: EventsSubscriber[] = [];
  const start = async (nodeId: string, options: Pick<ApiNodeOptions, "drainTimeoutMs"> = {}) => {
    const node = await startApiNode({
      nodeId,
      workspace: services.workspace,
      parent: services.parent,
      simUrl: services.sim.url,
      databaseUrl: services.database.url,
      redisUrl: services.redis.url,
      ...defaults,
      ...options,
    });
    nodes.push(node);
    return node;
  };
  return {
    nodes,
    start,
    reuse: async (nodeId) => nodes.find((node) => node.nodeId === nodeId) ?? (await start(nodeId)),
    follow(node, sessionId) {
      const tab = new EventsSubscriber(node.url, node.token, sessionId);
      tabs.push(tab);
      return tab;
    },
    async stopAll() {
      await Promise.all(tabs.map((tab) => tab.stop()));
      for (const node of nodes) {
        if (node.child.signalCode === null && node.child.exitCode === null) node.child.kill("SIGCONT");
        await node.kill();
      }
    },
  };
}

/** Reads what the nodes stored: a session's lease and its transcript lines, in order. */
export type StoreReader = {
  readonly sql: postgres.Sql;
  lease(sessionId: string): Promise<{ owner: string | null; generation: string } | undefined>;
  lines(sessionId: string): Promise<string[]>;
  end(): Promise<void>;
};

export function storeReader(databaseUrl: string): StoreReader {
  const sql = postgres(databaseUrl, { max: 2, onnotice: () => undefined });
  return {
    sql,
    lease: async (sessionId) =>
      (await sql<{ owner: string | null; generation: string }[]>`select owner, generation from cairn_session_leases where session_id = ${sessionId}`)[0],
    lines: async (sessionId) =>
      (await sql<{ line: string }[]>`select line from cairn_transcript_lines where session_id = ${sessionId} order by line_no`).map((row) => row.line),
    end: () => sql.end(),
  };
}
