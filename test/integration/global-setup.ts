import { buildCliBundle } from "../support/cli-bundle.ts";

/** Vitest global setup: the integration tests spawn `cairn`, which runs its bundle, so build it from today's sources. */
export default function setup(): void {
  buildCliBundle();
}
