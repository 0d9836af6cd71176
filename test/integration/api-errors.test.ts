import { describe, expect, it } from "vitest";
import { send, startApiFixture } from "./api-harness.ts";

const json = { "content-type": "application/json" };

describe("errors from the main router", () => {
  it("carry their code and message but never a stack trace or a server file path", async () => {
    await using fixture = await startApiFixture();
    const auth = { authorization: `Bearer ${fixture.server.token}` };
    const url = fixture.server.url;
    const responses = [
      await send(`${url}/api/trpc/workspace.write`, { method: "POST", headers: { ...json, ...auth }, body: '{"path":' }),
      await send(`${url}/api/trpc/workspace.read?input=${encodeURIComponent(JSON.stringify({ path: "missing.txt" }))}`, { headers: auth }),
      await send(`${url}/api/trpc/session.get?input=${encodeURIComponent(JSON.stringify({ sessionId: "no-such-session" }))}`, { headers: auth }),
      await send(`${url}/api/trpc/workspace.read?input=${encodeURIComponent(JSON.stringify({ path: 42 }))}`, { headers: auth }),
      await send(`${url}/api/trpc/no.such.procedure`, { headers: auth }),
    ];
    expect(responses.map((response) => response.status)).toEqual([400, 404, 404, 400, 404]);
    for (const response of responses) {
      const body = JSON.parse(response.body) as { error: { message: string; data: Record<string, unknown> } };
      expect(body.error.data).not.toHaveProperty("stack");
      expect(response.body).not.toMatch(/"stack"|file:\/\/|\bat .*\.(m?js|ts):\d+|node_modules|\/packages\//);
    }
    expect(JSON.parse(responses[1]!.body).error.data.cairn).toEqual({ code: "file_not_found", details: expect.any(Object) });
  });
});
