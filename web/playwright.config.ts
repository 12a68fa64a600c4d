import { defineConfig } from "@playwright/test";

// The browser suite: Debian's Chromium (Playwright never downloads one), against the real Python server
// on the embedded PostgreSQL with the demo corpora and the offline model (see e2e/stack.py).
export default defineConfig({
  testDir: "e2e",
  outputDir: "e2e/artifacts/results",
  timeout: 240_000,
  expect: { timeout: 60_000 },
  fullyParallel: true,
  workers: 2,
  retries: 0,
  reporter: [["list"]],
  globalSetup: "./e2e/global-setup.ts",
  use: {
    browserName: "chromium",
    viewport: { width: 1280, height: 900 },
    screenshot: "only-on-failure",
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
      ],
    },
  },
});
