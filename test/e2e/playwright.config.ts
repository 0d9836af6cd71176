import { defineConfig } from "@playwright/test";

/**
 * End-to-end tests of the web IDE: a production build served by `cairn serve` on 127.0.0.1, driven in Debian's
 * Chromium (never `playwright install`), with the model simulator answering. Started by ./global-setup.ts.
 */
export default defineConfig({
  testDir: ".",
  testMatch: "**/*.spec.ts",
  workers: 1,
  fullyParallel: false,
  forbidOnly: Boolean(process.env.CI),
  retries: 0,
  timeout: 120_000,
  expect: { timeout: 20_000 },
  outputDir: "./test-results",
  reporter: [["list"]],
  globalSetup: "./global-setup.ts",
  use: {
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    },
    viewport: { width: 1600, height: 1000 },
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    actionTimeout: 20_000,
  },
  projects: [
    // Trust is asked on the first visit of an untrusted workspace, so it runs before anything trusts it.
    { name: "trust", testMatch: "**/trust.spec.ts" },
    { name: "ide", testIgnore: "**/trust.spec.ts", dependencies: ["trust"] },
  ],
});
