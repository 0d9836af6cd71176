import { readFileSync } from "node:fs";

/** The CLI package's version (read next to the sources, or next to the bundle in dist/). */
export function cliVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };
  return pkg.version;
}
