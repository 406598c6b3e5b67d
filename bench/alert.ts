/**
 * Alert latency benchmark: from appending a failed call to a tailed file to the alert arriving
 * at a webhook receiver.
 *
 * A node:http receiver in this process timestamps every arrival (performance.now()). Lines are
 * appended to `<dir>/logs/app.log` (the file held open for appending, as an application does),
 * FL_BENCH_ALERTS of them (default 300) spaced FL_BENCH_ALERT_SPACING_MS (default 20) apart,
 * each a pino line of an HTTP 500 for a NEW model name, timestamped now. Measured in the same run:
 * - faultline: the built daemon tailing `logs/*.log` (`startAt: "beginning"`) with a `webhook`
 *   receiver, the `server-errors` rule grouped by model (threshold 1: every line opens a new
 *   alert group) and tickets sent to the same receiver. Alert latency = arrival of the
 *   notification with `kind: "alert"`, `status: "firing"`, `labels.model` = the line's model,
 *   minus the append time; ticket latency likewise for `kind: "ticket"`;
 * - baseline: a minimal forwarder in a child process (`node dist/bench/alert.js
 *   --baseline-forwarder FILE URL`): `fs.watch` on the file, read the new bytes, JSON.parse each
 *   new line, POST a small alert JSON to the same receiver (keep-alive agent).
 * A warm-up of 5 lines precedes each measured series. A second, sparse series appends
 * FL_BENCH_ALERTS_SPARSE lines (default 10) 400 ms apart: an isolated failure, with no next line
 * behind it to tell the tailer that its record is complete.
 *
 * Env: FL_BENCH_ALERTS (default 300), FL_BENCH_ALERT_SPACING_MS (default 20), FL_BENCH_ALERTS_SPARSE (10),
 * FL_BENCH_ALERT_DUMP=FILE (write the raw latencies, in append order, as JSON).
 * Run: `node dist/bench/alert.js [--json]`.
 */
import * as fs from "node:fs"
import * as http from "node:http"
import * as path from "node:path"
import * as readline from "node:readline"
import {
  type BenchResult,
  builtBench,
  envNumber,
  fetchJson,
  isMain,
  makeTempDir,
  note,
  percentile,
  ratioOf,
  removeTempDir,
  round,
  runStandalone,
  sleep,
  spawnTracked,
  startDaemon,
  startHttp,
  stopChild,
  waitFor
} from "./common.js"

const lineFor = (model: string, seq: number): string =>
  JSON.stringify({
    level: 50,
    time: Date.now(),
    pid: 4711,
    hostname: "chat-api-7d9f8",
    name: "chat-api",
    reqId: `req-alert-${seq}`,
    upstream: "https://api.siliconflow.cn/v1/chat/completions",
    status: 500,
    body: { code: 50500, message: "Internal server error, please contact the administrator", data: null },
    model,
    msg: "upstream call failed"
  }) + "\n"

// ---------------------------------------------------------------------------------------------
// the baseline forwarder (child process)

const baselineForwarder = (file: string, url: string): void => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 })
  const target = new URL(url)
  const fd = fs.openSync(file, "r")
  let offset = fs.fstatSync(fd).size
  let carry = ""
  const post = (body: string): void => {
    const req = http.request(
      { host: target.hostname, port: target.port, path: target.pathname, method: "POST", agent, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) } },
      (res) => res.resume()
    )
    req.on("error", () => undefined)
    req.end(body)
  }
  const readNew = (): void => {
    const size = fs.fstatSync(fd).size
    if (size <= offset) return
    const buf = Buffer.allocUnsafe(size - offset)
    const n = fs.readSync(fd, buf, 0, buf.length, offset)
    offset += n
    const text = carry + buf.toString("utf8", 0, n)
    const parts = text.split("\n")
    carry = parts.pop()!
    for (const line of parts) {
      if (line.charCodeAt(0) !== 123) continue
      try {
        const o = JSON.parse(line) as { status?: number; model?: string }
        if (typeof o.status === "number" && o.status >= 500) {
          post(JSON.stringify({ kind: "alert", status: "firing", rule: "server-errors", labels: { model: o.model ?? null }, count: 1 }))
        }
      } catch {
        /* not a JSON line */
      }
    }
  }
  fs.watch(file, { persistent: true }, readNew)
  process.stdout.write("ready\n")
  process.once("SIGTERM", () => process.exit(0))
}

const startForwarder = async (file: string, url: string) => {
  const proc = spawnTracked(process.execPath, [builtBench("alert"), "--baseline-forwarder", file, url], { stdio: ["ignore", "pipe", "inherit"] })
  await new Promise<void>((resolve, reject) => {
    const rl = readline.createInterface({ input: proc.stdout! })
    const timer = setTimeout(() => reject(new Error("the baseline forwarder did not start within 15 s")), 15_000)
    rl.on("line", (l) => {
      if (l === "ready") {
        clearTimeout(timer)
        resolve()
      }
    })
    proc.once("exit", (code) => reject(new Error(`the baseline forwarder exited with ${code}`)))
  })
  return { stop: () => stopChild(proc) }
}

// ---------------------------------------------------------------------------------------------
// appending and timing

interface Arrivals {
  readonly alerts: Map<string, number>
  readonly tickets: Map<string, number>
  other: number
}

const newArrivals = (): Arrivals => ({ alerts: new Map(), tickets: new Map(), other: 0 })

interface Series {
  /** Latencies in append order (ms). */
  readonly alert: Array<number>
  readonly ticket: Array<number>
  readonly missingAlerts: number
}

/**
 * Append `n` lines (models `<prefix>-<i>`) to `file`, `spacingMs` apart, then wait until every
 * alert (and ticket, when `tickets`) arrived or `settleMs` after the last append.
 */
const appendSeries = async (file: string, arrivals: Arrivals, prefix: string, n: number, spacingMs: number, tickets: boolean, settleMs = 15_000): Promise<Series> => {
  const fd = fs.openSync(file, "a")
  const appended = new Map<string, number>()
  try {
    let next = performance.now()
    for (let i = 0; i < n; i++) {
      const model = `bench/${prefix}-${i}`
      fs.writeSync(fd, lineFor(model, i))
      appended.set(model, performance.now())
      next += spacingMs
      const wait = next - performance.now()
      if (wait > 0) await sleep(wait)
    }
  } finally {
    fs.closeSync(fd)
  }
  const done = (): boolean => {
    for (const m of appended.keys()) {
      if (!arrivals.alerts.has(m)) return false
      if (tickets && !arrivals.tickets.has(m)) return false
    }
    return true
  }
  const deadline = performance.now() + settleMs
  while (!done() && performance.now() < deadline) await sleep(20)
  const alert: number[] = []
  const ticket: number[] = []
  let missing = 0
  for (const [m, t] of appended) {
    const a = arrivals.alerts.get(m)
    if (a === undefined) missing++
    else alert.push(a - t)
    const k = arrivals.tickets.get(m)
    if (k !== undefined) ticket.push(k - t)
  }
  return { alert, ticket, missingAlerts: missing }
}

// ---------------------------------------------------------------------------------------------

export async function run(): Promise<Array<BenchResult>> {
  const n = Math.round(envNumber("FL_BENCH_ALERTS", 300))
  const spacing = envNumber("FL_BENCH_ALERT_SPACING_MS", 20)
  const sparseN = Math.round(envNumber("FL_BENCH_ALERTS_SPARSE", 10))
  const SPARSE_MS = 400
  const dir = makeTempDir("faultline-bench-alert-")
  let arrivals = newArrivals()
  const receiver = await startHttp((req, body, res) => {
    const t = performance.now()
    res.writeHead(200, { "content-type": "application/json" })
    res.end("{}")
    try {
      const p = JSON.parse(body.toString("utf8")) as { kind?: string; status?: string; labels?: { model?: string }; ticket?: { model?: string } }
      if (p.kind === "alert" && p.status === "firing" && typeof p.labels?.model === "string") {
        if (!arrivals.alerts.has(p.labels.model)) arrivals.alerts.set(p.labels.model, t)
      } else if (p.kind === "ticket" && typeof p.ticket?.model === "string") {
        if (!arrivals.tickets.has(p.ticket.model)) arrivals.tickets.set(p.ticket.model, t)
      } else arrivals.other++
    } catch {
      arrivals.other++
    }
  })
  try {
    const logs = path.join(dir, "logs")
    fs.mkdirSync(logs)

    // baseline
    const baseFile = path.join(dir, "baseline.log")
    fs.writeFileSync(baseFile, "")
    const fwd = await startForwarder(baseFile, `${receiver.url}/hook`)
    let base: Series
    let baseSparse: Series
    try {
      await appendSeries(baseFile, arrivals, "warm-b", 5, spacing, false, 5000)
      base = await appendSeries(baseFile, arrivals, "b", n, spacing, false)
      baseSparse = await appendSeries(baseFile, arrivals, "bs", sparseN, SPARSE_MS, false)
    } finally {
      await fwd.stop()
    }
    note(`alert: baseline p50 ${round(percentile(base.alert, 50), 2)} ms, p99 ${round(percentile(base.alert, 99), 2)} ms, ${base.missingAlerts} missing`)

    // faultline
    arrivals = newArrivals()
    const file = path.join(logs, "app.log")
    fs.writeFileSync(file, `${new Date().toISOString()} INFO  [main] app.Server - listening on 0.0.0.0:8080\n`)
    const daemon = await startDaemon(dir, {
      tail: [{ path: path.join(logs, "*.log"), startAt: "beginning" }],
      receivers: [{ name: "bench", type: "webhook", url: `${receiver.url}/hook` }],
      defaultReceivers: ["bench"],
      rules: [{ name: "server-errors", groupBy: ["model"], threshold: 1, window: "5m" }],
      tickets: { receivers: ["bench"] }
    })
    let ours: Series
    let sparse: Series
    try {
      // the tailer has opened the file once its first line is counted
      await waitFor(
        "faultline to read the log's first line",
        async () => (await fetchJson<{ ingest: { linesRead: number } }>(`${daemon.url}/v1/report?since=1h`)).ingest.linesRead >= 1,
        15_000,
        50
      )
      await appendSeries(file, arrivals, "warm-f", 5, spacing, true, 10_000)
      ours = await appendSeries(file, arrivals, "f", n, spacing, true)
      sparse = await appendSeries(file, arrivals, "fs", sparseN, SPARSE_MS, true)
    } finally {
      const code = await daemon.stop()
      if (code !== 0 && code !== null) note(`faultline exited with ${code} on SIGTERM`)
    }
    // raw latencies in append order, for a closer look (FL_BENCH_ALERT_DUMP=file.json)
    if (process.env.FL_BENCH_ALERT_DUMP) fs.writeFileSync(process.env.FL_BENCH_ALERT_DUMP, JSON.stringify({ base, baseSparse, ours, sparse }))
    const p = (xs: ReadonlyArray<number>, q: number) => round(percentile(xs, q), 1)
    note(`alert: faultline p50 ${p(ours.alert, 50)} ms, p99 ${p(ours.alert, 99)} ms, ${ours.missingAlerts} missing; tickets p50 ${p(ours.ticket, 50)} ms`)
    const p99 = percentile(ours.alert, 99)
    const tag = `${n} lines ${spacing} ms apart, a new model each`
    return [
      { name: `alert: append -> webhook arrival p50 (${tag})`, value: p(ours.alert, 50), unit: "ms", baseline: p(base.alert, 50), ratio: ratioOf(percentile(ours.alert, 50), percentile(base.alert, 50), 1) },
      { name: "alert: append -> webhook arrival p99", value: p(ours.alert, 99), unit: "ms", baseline: p(base.alert, 99), ratio: ratioOf(p99, percentile(base.alert, 99), 1), goal: "p99 < 1000 ms", met: ours.missingAlerts === 0 && p99 < 1000 },
      { name: "alert: append -> webhook arrival max", value: p(ours.alert, 100), unit: "ms", baseline: p(base.alert, 100), ratio: ratioOf(percentile(ours.alert, 100), percentile(base.alert, 100), 1) },
      { name: "alert: ticket (kind: ticket) arrival p50", value: p(ours.ticket, 50), unit: "ms", baseline: p(base.alert, 50), ratio: ratioOf(percentile(ours.ticket, 50), percentile(base.alert, 50), 1) },
      { name: "alert: ticket (kind: ticket) arrival p99", value: p(ours.ticket, 99), unit: "ms", baseline: p(base.alert, 99), ratio: ratioOf(percentile(ours.ticket, 99), percentile(base.alert, 99), 1) },
      { name: `alert: isolated line (${sparseN} lines ${SPARSE_MS} ms apart) -> arrival p50`, value: p(sparse.alert, 50), unit: "ms", baseline: p(baseSparse.alert, 50), ratio: ratioOf(percentile(sparse.alert, 50), percentile(baseSparse.alert, 50), 1) },
      { name: "alert: isolated line -> arrival max", value: p(sparse.alert, 100), unit: "ms", baseline: p(baseSparse.alert, 100), ratio: ratioOf(percentile(sparse.alert, 100), percentile(baseSparse.alert, 100), 1), goal: "< 1000 ms", met: sparse.missingAlerts === 0 && percentile(sparse.alert, 100) < 1000 },
      { name: "alert: firing alerts received / lines appended", value: ours.alert.length + sparse.alert.length, unit: "alerts", baseline: n + sparseN, ratio: ratioOf(ours.alert.length + sparse.alert.length, n + sparseN, 4), goal: "= appended", met: ours.alert.length + sparse.alert.length === n + sparseN },
      { name: "alert: tickets received / lines appended", value: ours.ticket.length + sparse.ticket.length, unit: "tickets", baseline: n + sparseN, ratio: ratioOf(ours.ticket.length + sparse.ticket.length, n + sparseN, 4), goal: "= appended", met: ours.ticket.length + sparse.ticket.length === n + sparseN }
    ]
  } finally {
    await receiver.close()
    removeTempDir(dir)
  }
}

if (isMain(import.meta.url) && process.argv[2] === "--baseline-forwarder") {
  baselineForwarder(process.argv[3]!, process.argv[4]!)
} else {
  runStandalone(import.meta.url, run)
}
