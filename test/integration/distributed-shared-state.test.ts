import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServeProcess, type ServeProcess } from "../support/serve-process.ts";
import { apiClient, eventually, send } from "./api-harness.ts";
import { type DistributedServices, startDistributedServices } from "./distributed-harness.ts";
import { errorCode, shareViewClient, text } from "./share-support.ts";

/**
 * Two `cairn serve` processes over one PostgreSQL and one Redis: browser sign-ins, share links, trust decisions and
 * the rules written from the IDE are made on node A and hold on node B, and neither node keeps them in its own home.
 */
describe("distributed mode: shares, trust and IDE settings shared through PostgreSQL", () => {
  let services: DistributedServices;
  let nodeA: ServeProcess;
  let nodeB: ServeProcess;

  beforeAll(async () => {
    services = await startDistributedServices({ name: "shared", readme: "# shared\n", scenario: { turns: [text("The README has one heading.")] } });
    const { parent, workspace, sim, database, redis } = services;
    const common = { parent, workspace, modelUrl: sim.url, databaseUrl: database.url, redisUrl: redis.url };
    // One after the other: the first migrates the schema.
    nodeA = await startServeProcess({ ...common, nodeId: "node-a" });
    nodeB = await startServeProcess({ ...common, nodeId: "node-b" });
  }, 180_000);

  afterAll(async () => {
    await Promise.all([nodeA?.stop(), nodeB?.stop()]);
    await services?.stop();
  });

  it("a share link made on node A opens on node B; revoked on B, it is dead on A", async () => {
    const clientA = apiClient(nodeA.url, nodeA.token);
    const { sessionId } = await clientA.session.create.mutate();
    await clientA.session.send.mutate({ sessionId, prompt: "What is in the README?" });
    await eventually(async () => expect((await clientA.session.get.query({ sessionId })).running).toBe(false), 30_000);
    const created = await clientA.share.create.mutate({ sessionId, mode: "snapshot" });

    const onB = await shareViewClient(nodeB.url).view.session.query({ token: created.token });
    expect(onB.mode).toBe("snapshot");
    expect(JSON.stringify(onB.messages)).toContain("The README has one heading.");
    const clientB = apiClient(nodeB.url, nodeB.token);
    const listedOnB = await clientB.share.list.query();
    expect(listedOnB).toEqual([expect.objectContaining({ shareId: created.shareId, viewCount: 1, status: "active" })]);

    expect(await clientB.share.revoke.mutate({ shareId: created.shareId })).toEqual({ revoked: true });
    expect(await errorCode(shareViewClient(nodeA.url).view.session.query({ token: created.token }))).toBe("NOT_FOUND");
    // Neither node keeps a share database of its own.
    for (const node of [nodeA, nodeB]) expect(existsSync(join(node.home, ".cairn", "shares.db"))).toBe(false);
  });

  it("a browser signed in through node A is signed in on node B (same cookie and key); signing out everywhere on B signs it out on A", async () => {
    const infoPath = "/api/trpc/meta.info";
    const signIn = async (url: string, token: string) => {
      const login = await send(`${url}/?token=${token}`);
      expect(login.status).toBe(303);
      return { cookie: String(login.headers["set-cookie"]).split(";")[0]!, "x-cairn-key": String(login.headers.location).split("#cairn-key=")[1]! };
    };
    const browser = await signIn(nodeA.url, nodeA.token);
    // One cookie name for the cluster, whatever each node's port (behind a load balancer they differ).
    expect(browser.cookie).toMatch(/^cairn_session_[0-9a-f]{16}=/);
    expect((await signIn(nodeB.url, nodeB.token)).cookie.split("=")[0]).toBe(browser.cookie.split("=")[0]);
    for (const node of [nodeA, nodeB]) expect((await send(`${node.url}${infoPath}`, { headers: browser })).status).toBe(200);
    // The key is still required on every node.
    expect((await send(`${nodeB.url}${infoPath}`, { headers: { cookie: browser.cookie } })).status).toBe(401);
    const signOut = await send(`${nodeB.url}/api/trpc/auth.signOutEverywhere`, {
      method: "POST",
      headers: { "content-type": "application/json", ...browser, origin: nodeB.url },
      body: "{}",
    });
    expect(signOut.status).toBe(200);
    expect(JSON.parse(signOut.body).result.data.revoked).toBeGreaterThanOrEqual(2);
    for (const node of [nodeA, nodeB]) expect((await send(`${node.url}${infoPath}`, { headers: browser })).status).toBe(401);
  });

  it("trusting the workspace on node A trusts it on node B", async () => {
    const clientA = apiClient(nodeA.url, nodeA.token);
    const clientB = apiClient(nodeB.url, nodeB.token);
    expect((await clientB.meta.info.query()).trusted).toBe(false);
    expect(await clientA.meta.trust.mutate()).toEqual({ trusted: true });
    expect((await clientB.meta.info.query()).trusted).toBe(true);
    for (const node of [nodeA, nodeB]) expect(existsSync(join(node.home, ".cairn", "trusted.json"))).toBe(false);
  });

  it("a rule added from the IDE on node A applies on node B, and is not written into the workspace", async () => {
    const clientA = apiClient(nodeA.url, nodeA.token);
    const clientB = apiClient(nodeB.url, nodeB.token);
    const settingsOnA = await clientA.settings.get.query();
    expect(settingsOnA.files.localSettings).toMatch(/^postgres:cairn_local_settings\//);
    await clientA.settings.addRule.mutate({ scope: "local", behavior: "deny", rule: "WebFetch" });
    await eventually(async () =>
      expect((await clientB.settings.get.query()).rules).toContainEqual({ rule: "WebFetch", behavior: "deny", source: "localSettings" }),
    );
    expect(await clientB.settings.removeRule.mutate({ scope: "local", behavior: "deny", rule: "WebFetch" })).toEqual({ removed: true });
    await eventually(async () => expect((await clientA.settings.get.query()).rules).not.toContainEqual(expect.objectContaining({ rule: "WebFetch" })));
    expect(existsSync(join(services.workspace, ".claude", "settings.local.json"))).toBe(false);
  });
});
