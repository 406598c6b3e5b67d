/**
 * A real Prometheus (Debian's `prometheus` package) for tests: loopback only, a free port, a temp
 * config and a temp TSDB, scraping and evaluating every second. And `promtool`.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { freePort, tempDir, waitFor } from "./daemon.js"

export const PROM_BIN = "/usr/bin/prometheus"
export const PROMTOOL_BIN = "/usr/bin/promtool"
export const promPresent = fs.existsSync(PROM_BIN) && fs.existsSync(PROMTOOL_BIN)
/** Skipped only where the binaries are missing and we are not in CI (CI installs them and must run them). */
export const promSkip = !promPresent && !process.env.CI

/** `promtool ARGS...`: its exit code and output (never throws on a non-zero exit). */
export const promtool = (args: ReadonlyArray<string>): Promise<{ code: number; out: string }> =>
  new Promise((resolve) => {
    execFile(PROMTOOL_BIN, [...args], { timeout: 60_000 }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof (err as { code?: unknown }).code === "number" ? ((err as { code: number }).code) : 1
      resolve({ code, out: `${stdout}${stderr}` })
    })
  })

/** One element of an instant vector as `/api/v1/query` answers it. */
export interface PromSample {
  readonly metric: Record<string, string>
  readonly value: number
}

/** An alert as `/api/v1/alerts` lists it. */
export interface PromAlert {
  readonly labels: Record<string, string>
  readonly annotations: Record<string, string>
  readonly state: "pending" | "firing"
  readonly value: string
}

export interface RunningPrometheus {
  readonly url: string
  readonly dir: string
  readonly child: ChildProcess
  /** The stderr tail (Prometheus logs there). */
  log(): string
  /** `/api/v1/query` (instant); throws on a query error. */
  query(expr: string): Promise<PromSample[]>
  /** GET an API path (`/api/v1/...`) and return its `data`; throws unless `status` is `success`. */
  api<A = unknown>(p: string): Promise<A>
  stop(): Promise<void>
}

export interface PrometheusOptions {
  /** `host:port` of each scrape target (all in one job, `faultline`). */
  readonly targets: ReadonlyArray<string>
  readonly ruleFiles?: ReadonlyArray<string>
  /** Base URL of an Alertmanager (http://127.0.0.1:port) to send alerts to. */
  readonly alertmanager?: string
  /** Scrape and rule evaluation interval; default 1s. */
  readonly interval?: string
}

export const startPrometheus = async (opts: PrometheusOptions): Promise<RunningPrometheus> => {
  if (!promPresent) throw new Error(`${PROM_BIN} or ${PROMTOOL_BIN} is missing: apt-get install -y prometheus`)
  const dir = tempDir("faultline-prom-")
  const interval = opts.interval ?? "1s"
  const yaml = [
    "global:",
    `  scrape_interval: ${interval}`,
    `  scrape_timeout: ${interval}`,
    `  evaluation_interval: ${interval}`,
    `rule_files: ${JSON.stringify(opts.ruleFiles ?? [])}`,
    ...(opts.alertmanager === undefined
      ? []
      : ["alerting:", "  alertmanagers:", "    - api_version: v2", "      static_configs:", `        - targets: [${JSON.stringify(new URL(opts.alertmanager).host)}]`]),
    "scrape_configs:",
    "  - job_name: faultline",
    "    static_configs:",
    `      - targets: ${JSON.stringify(opts.targets)}`,
    ""
  ].join("\n")
  const configFile = path.join(dir, "prometheus.yml")
  fs.writeFileSync(configFile, yaml)
  const port = await freePort()
  const child = spawn(
    PROM_BIN,
    [
      `--config.file=${configFile}`,
      `--storage.tsdb.path=${path.join(dir, "data")}`,
      `--web.listen-address=127.0.0.1:${port}`,
      // alerts' generatorURL points here, not at the machine's host name
      `--web.external-url=http://127.0.0.1:${port}/`,
      // alerts are sent again every resend-delay while firing; 1s keeps Alertmanager's copy fresh
      "--rules.alert.resend-delay=1s",
      "--log.level=info"
    ],
    { cwd: dir, stdio: ["ignore", "ignore", "pipe"] }
  )
  let log = ""
  child.stderr!.on("data", (c: Buffer) => (log = (log + c.toString()).slice(-8000)))
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
  const url = `http://127.0.0.1:${port}`
  const api = async <A>(p: string): Promise<A> => {
    const r = await fetch(url + p, { signal: AbortSignal.timeout(10_000) })
    const body = (await r.json()) as { status: string; data: A; error?: string; errorType?: string }
    if (body.status !== "success") throw new Error(`prometheus ${p}: ${body.errorType ?? r.status}: ${body.error ?? ""}`)
    return body.data
  }
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM")
      const killer = setTimeout(() => child.kill("SIGKILL"), 10_000)
      await exited
      clearTimeout(killer)
    }
    fs.rmSync(dir, { recursive: true, force: true })
  }
  const running: RunningPrometheus = {
    url,
    dir,
    child,
    log: () => log,
    api,
    query: async (expr) => {
      const data = await api<{ resultType: string; result: Array<{ metric: Record<string, string>; value: [number, string] }> }>(
        `/api/v1/query?query=${encodeURIComponent(expr)}`
      )
      if (data.resultType !== "vector") throw new Error(`prometheus: ${expr} is a ${data.resultType}, not a vector`)
      return data.result.map((s) => ({ metric: s.metric, value: Number(s.value[1]) }))
    },
    stop
  }
  try {
    await waitFor(
      `prometheus ready on ${url}`,
      async () => {
        if (child.exitCode !== null) throw new Error(`prometheus exited (${child.exitCode}): ${log}`)
        return (await fetch(`${url}/-/ready`).catch(() => null))?.ok === true
      },
      60_000,
      100
    )
  } catch (e) {
    await stop()
    throw e
  }
  return running
}
