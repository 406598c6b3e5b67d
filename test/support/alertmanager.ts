/** A real Prometheus Alertmanager (Debian's package) for tests: one null receiver, no clustering, a free loopback port. */
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { freePort, tempDir, waitFor } from "./daemon.js"

export const AM_BIN = "/usr/bin/prometheus-alertmanager"
export const amPresent = fs.existsSync(AM_BIN)
/** Skipped only where the binary is missing and we are not in CI (CI installs it and must run it). */
export const amSkip = !amPresent && !process.env.CI

/** An alert as Alertmanager's GET /api/v2/alerts lists it. */
export interface AmAlert {
  readonly labels: Record<string, string>
  readonly annotations: Record<string, string>
  readonly startsAt: string
  readonly endsAt: string
  readonly generatorURL: string
  readonly status: { readonly state: string }
}

export interface RunningAlertmanager {
  readonly url: string
  readonly child: ChildProcess
  stop(): void
}

export const startAlertmanager = async (): Promise<RunningAlertmanager> => {
  if (!amPresent) throw new Error(`${AM_BIN} is missing: apt-get install -y prometheus-alertmanager`)
  const dir = tempDir("faultline-am-")
  const file = path.join(dir, "am.yml")
  fs.writeFileSync(file, ["route:", '  receiver: "null"', "  group_wait: 1s", "receivers:", '  - name: "null"', ""].join("\n"))
  const port = await freePort()
  const child = spawn(AM_BIN, [`--config.file=${file}`, `--storage.path=${path.join(dir, "data")}`, `--web.listen-address=127.0.0.1:${port}`, "--cluster.listen-address="], {
    stdio: ["ignore", "ignore", "pipe"]
  })
  let log = ""
  child.stderr!.on("data", (c: Buffer) => (log = (log + c.toString()).slice(-4000)))
  const url = `http://127.0.0.1:${port}`
  const stop = () => {
    if (child.exitCode === null) child.kill("SIGTERM")
  }
  try {
    await waitFor(`alertmanager ready on ${url}`, async () => {
      if (child.exitCode !== null) throw new Error(`alertmanager exited (${child.exitCode}): ${log}`)
      return (await fetch(`${url}/-/ready`).catch(() => null))?.ok === true
    }, 30_000)
  } catch (e) {
    stop()
    throw e
  }
  return { url, child, stop }
}
