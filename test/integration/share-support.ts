import { createTRPCClient, httpLink, TRPCClientError } from "@trpc/client";
import { expect } from "vitest";
import type { CairnServer, ShareOptions } from "@cairn/api";
import type { ShareViewRouter } from "@cairn/api/share-router";
import type { ModelSim, Scenario } from "@cairn/model-sim";
import { type apiClient, eventually, readSse, startApiFixture, type SseMessage } from "./api-harness.ts";

/** Helpers for the share-*.test.ts integration tests: a real server with an adjustable clock, over real HTTP. */

export type ShareFixture = {
  server: CairnServer;
  sim: ModelSim;
  root: string;
  cairnHome: string;
  /** The owner: the main router with the access token. */
  client: ReturnType<typeof apiClient>;
  /** A viewer: the share router, no cookie, no token. */
  viewer: ReturnType<typeof shareViewClient>;
  /** Moves the server's clock (expiry) forward. */
  advance(ms: number): void;
  [Symbol.asyncDispose](): Promise<void>;
};

export async function startShareFixture(
  options: { scenario?: Scenario; checkpoints?: boolean; files?: Record<string, string>; share?: Omit<ShareOptions, "now"> } = {},
): Promise<ShareFixture> {
  let offset = 0;
  const fixture = await startApiFixture({
    ...(options.scenario ? { scenario: options.scenario } : {}),
    ...(options.files ? { files: options.files } : {}),
    checkpoints: options.checkpoints ?? false,
    share: { environment: {}, recheckMs: 100, ...options.share, now: () => Date.now() + offset },
  });
  return {
    server: fixture.server,
    sim: fixture.sim,
    root: fixture.root,
    cairnHome: fixture.cairnHome,
    client: fixture.client,
    viewer: shareViewClient(fixture.server.url),
    advance: (ms) => {
      offset += ms;
    },
    [Symbol.asyncDispose]: () => fixture[Symbol.asyncDispose](),
  };
}

export function shareViewClient(url: string) {
  return createTRPCClient<ShareViewRouter>({ links: [httpLink({ url: `${url}/api/share` })] });
}

export const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });

/** Runs one prompt to its end. */
export async function prompt(fixture: ShareFixture, sessionId: string, words: string): Promise<void> {
  await fixture.client.session.send.mutate({ sessionId, prompt: words });
  await eventually(async () => expect((await fixture.client.session.get.query({ sessionId })).running).toBe(false), 20_000);
}

/** The tRPC error code of a failed call ("NOT_FOUND", …), or "resolved" when it did not fail. */
export async function errorCode(call: Promise<unknown>): Promise<string> {
  try {
    await call;
    return "resolved";
  } catch (error) {
    if (error instanceof TRPCClientError) return String((error.data as { code?: string } | undefined)?.code ?? error.message);
    throw error;
  }
}

export async function errorOf(call: Promise<unknown>): Promise<{ code: string; message: string; httpStatus: number | undefined }> {
  try {
    await call;
  } catch (error) {
    if (error instanceof TRPCClientError) {
      const data = error.data as { code?: string; httpStatus?: number } | undefined;
      return { code: String(data?.code), message: error.message, httpStatus: data?.httpStatus };
    }
    throw error;
  }
  throw new Error("the call succeeded");
}

/** One `view.events` SSE stream, read in the background until it ends or is stopped. */
export class ShareEventsReader {
  readonly messages: SseMessage[] = [];
  ended = false;
  failure: unknown;
  private readonly controller = new AbortController();
  readonly done: Promise<void>;

  constructor(url: string, token: string, lastEventId: string | null = null) {
    const input = encodeURIComponent(JSON.stringify({ token, lastEventId }));
    this.done = (async () => {
      try {
        for await (const message of readSse(`${url}/api/share/view.events?input=${input}`, { headers: {}, signal: this.controller.signal }))
          this.messages.push(message);
      } catch (error) {
        if (!this.controller.signal.aborted) this.failure = error;
      } finally {
        this.ended = true;
      }
    })();
  }

  data(): unknown[] {
    return this.messages.filter((message) => message.event === "message" && message.id !== undefined).map((message) => JSON.parse(message.data) as unknown);
  }

  async stop(): Promise<void> {
    this.controller.abort();
    await this.done;
  }
}
