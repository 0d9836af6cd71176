import { defineConfig } from "vitest/config";

// Sandboxed shells and worker processes start slowly on a loaded 2-core machine; the limits leave room for that.
export default defineConfig({
  test: { include: ["src/**/*.test.ts"], environment: "node", testTimeout: 60_000, hookTimeout: 60_000 },
});
