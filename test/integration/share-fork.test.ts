import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { errorCode, prompt, startShareFixture, text } from "./share-support.ts";

describe("share.fork: continue a shared session as a copy", () => {
  it("forks the conversation up to the pin and restores the files to that message's checkpoint", async () => {
    await using fixture = await startShareFixture({ checkpoints: true });
    const target = join(fixture.root, "notes.txt");
    fixture.sim.setScenario({
      turns: [
        { content: [{ type: "tool_use", name: "Write", input: { file_path: target, content: "v1\n" } }] },
        text("wrote v1"),
        { content: [{ type: "tool_use", name: "Write", input: { file_path: target, content: "v2\n" } }] },
        text("wrote v2"),
      ],
    });
    const { client } = fixture;
    const { sessionId } = await client.session.create.mutate({ permissionMode: "acceptEdits" });
    await prompt(fixture, sessionId, "write v1");
    const share = await client.share.create.mutate({ sessionId, mode: "snapshot" });
    await prompt(fixture, sessionId, "write v2");
    expect(await readFile(target, "utf8")).toBe("v2\n");
    const all = (await client.session.get.query({ sessionId })).messages;
    const pinAt = all.findIndex((message) => message.uuid === share.pinnedMessageUuid);
    expect(pinAt).toBe(3);

    const forked = await client.share.fork.mutate({ token: share.token });
    expect(forked.sessionId).not.toBe(sessionId);
    expect(forked.filesRestored).toBe(true);
    const copy = await client.session.get.query({ sessionId: forked.sessionId });
    expect(copy.messages.map((message) => message.uuid)).toEqual(all.slice(0, pinAt + 1).map((message) => message.uuid));
    expect(await readFile(target, "utf8")).toBe("v1\n");

    // A message past the pin is not part of the share; an earlier one is.
    expect(await errorCode(client.share.fork.mutate({ token: share.token, messageUuid: all.at(-1)!.uuid }))).toBe("BAD_REQUEST");
    const early = await client.share.fork.mutate({ token: share.token, messageUuid: all[1]!.uuid });
    // The hub keeps a tool_use's result with it: the copy ends at the tool result, before the pin.
    const earlyCopy = (await client.session.get.query({ sessionId: early.sessionId })).messages.map((message) => message.uuid);
    expect(earlyCopy).toEqual(all.slice(0, 3).map((message) => message.uuid));

    // A dead token forks nothing.
    await client.share.revoke.mutate({ shareId: share.shareId });
    expect(await errorCode(client.share.fork.mutate({ token: share.token }))).toBe("NOT_FOUND");
  });

  it("forks a live share at its last message; without checkpoints the files stay as they are", async () => {
    await using fixture = await startShareFixture({ scenario: { turns: [text("one"), text("two")] } });
    const { client } = fixture;
    const { sessionId } = await client.session.create.mutate();
    await prompt(fixture, sessionId, "first");
    const share = await client.share.create.mutate({ sessionId, mode: "live" });
    await prompt(fixture, sessionId, "second");
    const forked = await client.share.fork.mutate({ token: share.token });
    expect(forked.filesRestored).toBe(false);
    expect((await client.session.get.query({ sessionId: forked.sessionId })).messages).toHaveLength(4);
  });
});
