import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { NextConfig } from "next";

/**
 * The timeline page's own script and styles (public/timeline-app.*, written by scripts/build-timeline-export.mjs
 * before `next build`), named by their content: the page asks for `?v=<this>`, so a browser may keep them for good
 * (and keep V8's compiled code with them, which a revalidated file loses). Read when `next build` runs (in this
 * folder, as npm runs it) and inlined into the server code then.
 */
function timelineAppVersion(): string {
  const files = ["timeline-app.js", "timeline-app.css"].map((name) => join(process.cwd(), "public", name));
  if (!files.every((file) => existsSync(file))) return "unbuilt";
  const hash = createHash("sha256");
  for (const file of files) hash.update(readFileSync(file));
  return hash.digest("hex").slice(0, 16);
}

const nextConfig: NextConfig = {
  // @cairn/core ships TypeScript source; this also keeps the `--webpack` fallback working.
  transpilePackages: ["@cairn/core"],
  poweredByHeader: false,
  reactStrictMode: true,
  env: { CAIRN_TIMELINE_APP_VERSION: timelineAppVersion() },
  headers: async () => [
    {
      source: "/:file(timeline-app\\.js|timeline-app\\.css)",
      headers: [{ key: "Cache-Control", value: "public, max-age=31536000, immutable" }],
    },
  ],
};

export default nextConfig;
