import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { expect, openIde, startNewSession, test } from "./support/fixtures.ts";

/** A plain local web server, as any dev server on another port would be: it records the headers of every request. */
async function startRecorder(): Promise<{ port: number; requests: { host: string; headers: IncomingHttpHeaders }[]; server: Server }> {
  const requests: { host: string; headers: IncomingHttpHeaders }[] = [];
  const server = createServer((request, response) => {
    requests.push({ host: request.headers.host ?? "", headers: request.headers });
    response.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
    response.end("<!doctype html><title>another local service</title><p>hello</p>");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { port: (server.address() as AddressInfo).port, requests, server };
}

/** Every `name=value` pair of a Cookie header. */
function cookiePairs(header: string | undefined): { name: string; value: string }[] {
  return (header ?? "")
    .split(";")
    .map((part) => part.trim())
    .filter((part) => part.includes("="))
    .map((part) => ({ name: part.slice(0, part.indexOf("=")), value: part.slice(part.indexOf("=") + 1) }));
}

test("another port on 127.0.0.1 or on the IDE's own name never receives a credential that opens Cairn", async ({ page, e2e }) => {
  const recorder = await startRecorder();
  try {
    // Signed in twice, as a user might: at the printed cairn-<random>.localhost address and at 127.0.0.1.
    await openIde(page, e2e.loginUrl);
    await expect.poll(() => page.evaluate(() => window.location.hash)).toBe("");
    await openIde(page, `${e2e.loopbackUrl}/?token=${e2e.token}`);
    const ideHost = new URL(e2e.url).hostname;
    const visited = [`http://127.0.0.1:${recorder.port}/`, `http://localhost:${recorder.port}/`, `http://${ideHost}:${recorder.port}/`];
    for (const address of visited) {
      await page.goto(address);
      await expect(page.locator("p")).toHaveText("hello");
    }
    expect(recorder.requests.map((request) => request.host)).toEqual(expect.arrayContaining(visited.map((address) => new URL(address).host)));

    // Browsers send a host's cookies to all its ports: the IDE's name does hand its session cookie over. It must be useless.
    const received = recorder.requests.flatMap((request) => cookiePairs(request.headers.cookie));
    expect(received.map((pair) => pair.name)).toContain(`cairn_session_${new URL(e2e.url).port}`);
    for (const { name, value } of received) {
      expect(value).not.toBe(e2e.token);
      const attempts = [
        fetch(`${e2e.loopbackUrl}/api/trpc/meta.info`, { headers: { cookie: `${name}=${value}` } }),
        fetch(`${e2e.loopbackUrl}/api/trpc/meta.info`, { headers: { cookie: `${name}=${value}`, "x-cairn-key": value } }),
        fetch(`${e2e.loopbackUrl}/api/trpc/meta.info`, { headers: { authorization: `Bearer ${value}` } }),
        fetch(`${e2e.loopbackUrl}/?token=${encodeURIComponent(value)}`, { redirect: "manual" }),
      ];
      for (const response of await Promise.all(attempts)) expect({ name, status: response.status }).toEqual({ name, status: 401 });
    }
    // The IDE itself still works at both addresses.
    await page.goto(e2e.url);
    await expect(page.getByTestId("ide")).toBeVisible();
    await expect(page.getByTestId("file-tree")).toBeVisible();
  } finally {
    await new Promise<void>((resolve) => recorder.server.close(() => resolve()));
  }
});

test("Sign out everywhere ends every browser's sign-in and the streams open in its tabs; the printed link signs in again", async ({
  ide: page,
  e2e,
  browser,
}) => {
  const other = await browser.newContext();
  try {
    const otherPage = await other.newPage();
    await openIde(otherPage, e2e.loginUrl);
    // The other browser follows a session live when this one signs every browser out.
    await startNewSession(otherPage);
    page.once("dialog", (dialog) => void dialog.accept());
    await page.getByTestId("sign-out-everywhere").click();
    await expect(page.locator("body")).toContainText("401 Unauthorized");
    // Its open stream ends at once and its chat says why (no silent reconnecting), before any reload.
    const otherChat = otherPage.getByTestId("chat");
    await expect(otherChat).toHaveAttribute("data-stream", "failed", { timeout: 10_000 });
    await expect(otherChat.getByRole("alert")).toContainText("This browser was signed out");
    await otherPage.reload();
    await expect(otherPage.locator("body")).toContainText("401 Unauthorized");
    await openIde(page, e2e.loginUrl);
    await expect(page.getByTestId("file-tree")).toBeVisible();
  } finally {
    await other.close();
  }
});
