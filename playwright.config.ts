import { existsSync } from 'node:fs'
import { defineConfig } from '@playwright/test'

// Chromium's headless shell (Debian's `chromium-headless-shell`; what Playwright itself runs for headless tests) where it
// is installed: the same Blink and V8 without the full browser around them, ~30% less CPU per test than the full
// `chromium --headless` (transcript-ui + costs-ui: 44 -> 30 CPU-s). CHROMIUM_PATH picks another binary.
const HEADLESS_SHELL = '/usr/bin/chromium-headless-shell'
const chromium = process.env.CHROMIUM_PATH ?? (existsSync(HEADLESS_SHELL) ? HEADLESS_SHELL : '/usr/bin/chromium')

// Specs start their own `caduceus serve` on a seeded temp home (e2e/fixtures/host.ts), so no webServer here.
export default defineConfig({
  testDir: './e2e/specs',
  globalSetup: './e2e/fixtures/global-setup.ts',
  timeout: 60_000,
  expect: { timeout: 10_000 },
  // Every test has its own host and home, so files run side by side; two cores, two workers.
  workers: 2,
  retries: 0,
  outputDir: 'test-results',
  reporter: process.env.PLAYWRIGHT_JSON_OUTPUT_NAME ? [['list'], ['json']] : [['list']],
  use: {
    headless: true,
    // One browser context per worker, reset by Playwright between tests (cookies, cache, storage of the origins
    // visited, extra pages, routes, clock, viewport; e2e/fixtures/host.ts clears sessionStorage too): a fresh context
    // per test cost ~2 CPU-s of Chromium start-up each (a new renderer, its about:blank page and a spare), ~25% of the
    // suite's e2e CPU. Isolation between tests stays: each test has its own host on its own port, so its own origin.
    reuseContext: true,
    viewport: { width: 1360, height: 860 },
    // The app's blinking live markers (a running subagent, the streaming caret) hold still under this preference, so
    // the browser paints no frames for them while a test waits (a11y.spec checks both preferences itself).
    reducedMotion: 'reduce',
    // Recording a trace costs every test ~30% more CPU (a11y.spec: 30 -> 21 CPU-s without it) to keep the ones that
    // fail. Off by default; CADUCEUS_E2E_TRACE=1 records and keeps the failing ones. A failure always gets a screenshot.
    trace: process.env.CADUCEUS_E2E_TRACE ? 'retain-on-failure' : 'off',
    screenshot: 'only-on-failure',
    launchOptions: {
      executablePath: chromium,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run'
      ]
    }
  }
})
