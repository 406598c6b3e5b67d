import { defineConfig } from "vitest/config"

/**
 * Tests whose figures are the daemon's own under load run alone, after everything else: on two
 * shared cores a neighbouring test file (Chromium starting for the page test) left the daemon's
 * main thread runnable but waiting for a CPU ~75 % of the time (its schedstat, sampled every
 * 5 ms), and /healthz then answered in 1-4 s whatever the daemon did.
 */
const alone = ["test/e2e/load.test.ts"]

export default defineConfig({
  test: {
    globalSetup: ["test/global-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Daemon tests start real processes and servers; two cores are shared.
    pool: "forks",
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    reporters: ["default", "./test/summary-reporter.ts"],
    projects: [
      { extends: true, test: { name: "suite", include: ["test/**/*.test.ts"], exclude: alone } },
      { extends: true, test: { name: "alone", include: alone, poolOptions: { forks: { singleFork: true } }, sequence: { groupOrder: 1 } } }
    ]
  }
})
