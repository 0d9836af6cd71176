import { afterEach, describe, expect, it } from "vitest";
import { createInitialAppState } from "../state/app-state.ts";
import { createStore } from "../state/store.ts";
import type { McpServerEntry } from "./config.ts";
import type { McpLaunchInfo, McpTransportFactory } from "./connection.ts";
import { McpManager } from "./manager.ts";
import { createInMemoryServers } from "./test-server.ts";

const managers: McpManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.close()));
});

const stdio = (name: string, source: McpServerEntry["source"] = "dynamic"): McpServerEntry => ({ name, source, config: { command: "test-server" } });

function setup(
  servers: McpServerEntry[],
  options: { trusted?: boolean; launch?: McpLaunchInfo; sleep?: (ms: number, signal: AbortSignal) => Promise<void> } = {},
) {
  const inMemory = createInMemoryServers();
  const factory: McpTransportFactory = Object.assign((entry: McpServerEntry) => inMemory.factory(entry), {
    launchInfo: (name: string) => (name.startsWith("remote") ? undefined : options.launch),
  });
  const store = createStore(createInitialAppState({ model: "m" }));
  const manager = new McpManager({
    servers,
    trusted: options.trusted ?? true,
    transportFactory: factory,
    clientInfo: { name: "cairn-test", version: "0" },
    env: {},
    setAppState: store.setState,
    sleep: options.sleep ?? (async () => undefined),
  });
  managers.push(manager);
  return { manager, inMemory, store };
}

describe("McpManager.servers() for the UI", () => {
  it("says each server's transport, whether it waits for trust, and how its process was started", async () => {
    const { manager } = setup(
      [stdio("local"), { name: "remote-api", source: "userSettings", config: { type: "http", url: "http://127.0.0.1:1/mcp" } }, stdio("proj", "project")],
      { trusted: false, launch: { sandboxed: true } },
    );
    await manager.start();
    const byName = Object.fromEntries(manager.servers().map((server) => [server.name, server]));
    expect(byName.local).toMatchObject({ transport: "stdio", needsTrust: false, launch: { sandboxed: true }, status: { state: "connected" } });
    expect(byName["remote-api"]).toMatchObject({ transport: "http", needsTrust: false });
    expect(byName["remote-api"]?.launch).toBeUndefined();
    expect(byName.proj).toEqual({ name: "proj", source: "project", transport: "stdio", status: { state: "disabled" }, tools: [], needsTrust: true });
  });

  it("puts the launcher's warning into the connected status, in app state too", async () => {
    const warning = "not sandboxed: bubblewrap is missing";
    const { manager, store } = setup([stdio("plain")], { launch: { sandboxed: false, warning } });
    await manager.start();
    expect(store.getState().mcp.servers.plain).toEqual({ state: "connected", toolCount: 8, warning });
  });
});

describe("McpManager.reconnect", () => {
  it("drops a live connection and connects again at once", async () => {
    const { manager, inMemory } = setup([stdio("srv")]);
    await manager.start();
    expect(inMemory.connects).toBe(1);
    const info = await manager.reconnect("srv");
    expect(info.status).toMatchObject({ state: "connected", toolCount: 8 });
    expect(inMemory.connects).toBe(2);
    // The old connection's close is not taken for a failure: no backoff round starts behind it.
    expect(manager.servers()[0]?.status.state).toBe("connected");
    expect(inMemory.connects).toBe(2);
  });

  it("cancels a waiting backoff round instead of waiting for it", async () => {
    const sleeps: AbortSignal[] = [];
    let sleeping: () => void = () => undefined;
    const firstSleep = new Promise<void>((resolve) => (sleeping = resolve));
    const sleep = (_ms: number, signal: AbortSignal) =>
      new Promise<void>((_resolve, reject) => {
        sleeps.push(signal);
        sleeping();
        signal.addEventListener("abort", () => reject(new Error("aborted")), { once: true });
      });
    const { manager, inMemory } = setup([stdio("srv")], { sleep });
    await manager.start();
    await inMemory.kill("srv");
    await firstSleep;
    const info = await manager.reconnect("srv");
    expect(sleeps[0]?.aborted).toBe(true);
    expect(info.status.state).toBe("connected");
    expect(inMemory.connects).toBe(2);
  });

  it("refuses a server waiting for trust and an unknown one", async () => {
    const { manager } = setup([stdio("proj", "project")], { trusted: false });
    await manager.start();
    await expect(manager.reconnect("proj")).rejects.toMatchObject({ code: "not_connected" });
    await expect(manager.reconnect("nope")).rejects.toMatchObject({ code: "unknown_server" });
  });
});
