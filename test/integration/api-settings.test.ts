import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { TRPCClientError } from "@trpc/client";
import { describe, expect, it } from "vitest";
import { EventsSubscriber, startApiFixture, eventually } from "./api-harness.ts";

describe("settings and meta procedures", () => {
  it("shows merged rules with their sources, and adds and removes local rules that apply at once", async () => {
    await using fixture = await startApiFixture({ settings: { permissions: { allow: ["Read"], deny: ["Bash(rm:*)", "NotATool((("] } } });
    const { client, root } = fixture;
    const before = await client.settings.get.query();
    expect(before.rules).toEqual(
      expect.arrayContaining([
        { rule: "Read", behavior: "allow", source: "projectSettings" },
        { rule: "Bash(rm:*)", behavior: "deny", source: "projectSettings" },
      ]),
    );
    expect(before.problems.length).toBeGreaterThan(0);
    expect(before.files.localSettings).toBe(join(root, ".claude", "settings.local.json"));

    await client.settings.addRule.mutate({ scope: "local", behavior: "deny", rule: "WebFetch" });
    expect(JSON.parse(await readFile(join(root, ".claude", "settings.local.json"), "utf8"))).toEqual({ permissions: { deny: ["WebFetch"] } });
    expect((await client.settings.get.query()).rules).toContainEqual({ rule: "WebFetch", behavior: "deny", source: "localSettings" });
    expect(await client.settings.removeRule.mutate({ scope: "local", behavior: "deny", rule: "WebFetch" })).toEqual({ removed: true });
    expect((await client.settings.get.query()).rules).not.toContainEqual(expect.objectContaining({ rule: "WebFetch" }));
    expect(await client.settings.removeRule.mutate({ scope: "local", behavior: "deny", rule: "WebFetch" })).toEqual({ removed: false });

    const invalid = await client.settings.addRule.mutate({ scope: "local", behavior: "allow", rule: "Bash(unclosed" }).catch((error: unknown) => error);
    expect(invalid).toBeInstanceOf(TRPCClientError);
    expect((invalid as TRPCClientError<never>).data).toMatchObject({ code: "BAD_REQUEST", cairn: { code: "invalid_rule" } });
  });

  it("a session allow rule lets the agent act without asking, in that session only", async () => {
    await using fixture = await startApiFixture();
    const target = join(fixture.root, "allowed.txt");
    fixture.sim.setScenario({
      turns: [{ content: [{ type: "tool_use", name: "Write", input: { file_path: target, content: "ok\n" } }] }, { content: [{ type: "text", text: "done" }] }],
    });
    const { client } = fixture;
    const { sessionId } = await client.session.create.mutate();
    await client.settings.addRule.mutate({ scope: "session", sessionId, behavior: "allow", rule: "Write" });
    expect((await client.settings.get.query({ sessionId })).rules).toContainEqual({ rule: "Write", behavior: "allow", source: "session" });
    const other = await client.session.create.mutate();
    expect((await client.settings.get.query({ sessionId: other.sessionId })).rules).not.toContainEqual(expect.objectContaining({ source: "session" }));

    const tab = new EventsSubscriber(fixture.server.url, fixture.server.token, sessionId);
    try {
      await client.session.send.mutate({ sessionId, prompt: "write" });
      await eventually(() => expect(tab.events().some((event) => event.type === "result")).toBe(true), 20_000);
      expect(tab.events().some((event) => event.type === "permission-request")).toBe(false);
      expect(tab.events().find((event) => event.type === "permission-decision")).toMatchObject({
        behavior: "allow",
        reason: { type: "rule", rule: "Write", source: "session" },
      });
      expect(await readFile(target, "utf8")).toBe("ok\n");
    } finally {
      await tab.stop();
    }
    const denyInSession = await client.settings.addRule
      .mutate({ scope: "session", sessionId, behavior: "deny", rule: "Write" })
      .catch((error: unknown) => error);
    expect((denyInSession as TRPCClientError<never>).data).toMatchObject({ cairn: { code: "invalid_rule" } });
  });

  it("reports the server and remembers trusting the workspace", async () => {
    await using fixture = await startApiFixture();
    const { client } = fixture;
    const info = await client.meta.info.query();
    expect(info).toMatchObject({ version: "0.0.0-test", demo: false, model: "sim-model", workspaceRoot: fixture.root, trusted: false });
    // CI installs bubblewrap and socat, so the sandbox must be usable here; the unavailable case is meta-service's unit test.
    expect(info.sandbox).toEqual({ available: true });

    expect(await client.meta.trust.mutate()).toEqual({ trusted: true });
    expect((await client.meta.info.query()).trusted).toBe(true);
    expect(JSON.parse(await readFile(join(fixture.cairnHome, "trusted.json"), "utf8"))).toEqual({ trusted: [fixture.root] });
  });
});
