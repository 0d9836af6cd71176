import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createSignedInClient, isNotSignedIn } from "./share-client.ts";

let server: Server | undefined;

afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A stand-in for `cairn serve`'s front door: one fixed answer to every request. */
async function answering(status: number, contentType: string, body: string): Promise<string> {
  server = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      response.writeHead(status, { "Content-Type": contentType });
      response.end(body);
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server!.address() as AddressInfo).port}/api/trpc`;
}

describe("Continue as copy from a shared page", () => {
  it("reads the access guard's plain-text 401 as 'not signed in'", async () => {
    const url = await answering(401, "text/plain; charset=utf-8", "401 Unauthorized: Open the link that `cairn serve` printed\n");
    const error = await createSignedInClient(url)
      .share.fork.mutate({ token: "cairn_shr_x" })
      .catch((caught: unknown) => caught);
    expect(isNotSignedIn(error)).toBe(true);
  });

  it("keeps other failures as they are (a dead link is NOT_FOUND, not a sign-in problem)", async () => {
    const notFound = {
      error: { message: "This share link does not exist or is no longer available.", code: -32004, data: { code: "NOT_FOUND", httpStatus: 404 } },
    };
    const url = await answering(404, "application/json", JSON.stringify(notFound));
    const error = await createSignedInClient(url)
      .share.fork.mutate({ token: "cairn_shr_x" })
      .catch((caught: unknown) => caught);
    expect(isNotSignedIn(error)).toBe(false);
    expect((error as Error).message).toContain("no longer available");
  });

  it("treats a tRPC UNAUTHORIZED as not signed in too", () => {
    expect(isNotSignedIn({ data: { code: "UNAUTHORIZED" } })).toBe(true);
    expect(isNotSignedIn(new Error("network down"))).toBe(false);
  });
});
