import Anthropic from "@anthropic-ai/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { DEMO_PREFIX } from "./demo-model.ts";
import { startDemoModel, type DemoModel } from "./demo-server.ts";

let demo: DemoModel | undefined;
afterEach(async () => {
  await demo?.close();
  demo = undefined;
});

describe("startDemoModel", () => {
  it("answers through the real SDK on a loopback port", async () => {
    demo = await startDemoModel();
    expect(demo.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const client = new Anthropic({ apiKey: "cairn-demo", baseURL: demo.url, maxRetries: 0 });
    const message = await client.messages.create({ model: "cairn-demo", max_tokens: 256, messages: [{ role: "user", content: "hello" }] });
    expect(message.content[0]).toMatchObject({ type: "text", text: expect.stringContaining(DEMO_PREFIX) });
  });

  it("has no test instruments: no request log to read back and no script to replace", async () => {
    demo = await startDemoModel();
    const client = new Anthropic({ apiKey: "cairn-demo", baseURL: demo.url, maxRetries: 0 });
    await client.messages.create({ model: "cairn-demo", max_tokens: 256, messages: [{ role: "user", content: "read secrets.txt" }] });
    const log = await fetch(`${demo.url}/_sim/requests`);
    expect(log.status).toBe(404);
    expect(await log.text()).not.toContain("secrets.txt");
    for (const path of ["/_sim/scenario", "/_sim/reset"]) {
      const control = await fetch(`${demo.url}${path}`, { method: "POST", body: JSON.stringify({ turns: [] }) });
      expect(control.status).toBe(404);
    }
  });
});
