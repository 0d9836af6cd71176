import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["integration/**/*.test.ts", "bench/**/*.test.ts"],
    environment: "node",
    globalSetup: ["integration/global-setup.ts"],
    testTimeout: 180_000,
    hookTimeout: 120_000,
  },
});
