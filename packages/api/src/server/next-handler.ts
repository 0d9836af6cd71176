import { existsSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createRequire } from "node:module";
import { join } from "node:path";

export type WebHandler = {
  handle(request: IncomingMessage, response: ServerResponse): Promise<void>;
  close(): Promise<void>;
};

/** The part of Next's custom-server API used here (Next 16: `next({ dev, dir, hostname, port })`). */
type NextApp = {
  prepare(): Promise<void>;
  getRequestHandler(): (request: IncomingMessage, response: ServerResponse) => Promise<void>;
  close(): Promise<void>;
};
type NextFactory = (options: { dev: boolean; dir: string; hostname?: string; port?: number; quiet?: boolean }) => NextApp;

export class WebAppNotBuiltError extends Error {
  override readonly name = "WebAppNotBuiltError";
  readonly code = "web_not_built";
}

export function isWebAppBuilt(webDir: string): boolean {
  return existsSync(join(webDir, ".next", "BUILD_ID"));
}

/**
 * The production Next.js app in `webDir`, as a request handler. `next` is loaded from the web app's
 * own dependencies, so this package does not depend on Next.
 */
export async function loadNextHandler(options: { webDir: string; hostname: string; port: number }): Promise<WebHandler> {
  if (!isWebAppBuilt(options.webDir)) throw new WebAppNotBuiltError(`The web app in ${options.webDir} has not been built (run next build there)`);
  const require = createRequire(join(options.webDir, "package.json"));
  const loaded = require("next") as NextFactory | { default: NextFactory };
  const next = typeof loaded === "function" ? loaded : loaded.default;
  const app = next({ dev: false, dir: options.webDir, hostname: options.hostname, port: options.port, quiet: true });
  await app.prepare();
  const handle = app.getRequestHandler();
  return { handle: (request, response) => handle(request, response), close: () => app.close() };
}
