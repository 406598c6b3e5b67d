/**
 * Webhook ingest benchmark: `POST /v1/events` with one structured failure per request (a 429
 * with the service's own error body, a unique `id` and `requestId` per request, set by
 * autocannon's `setupRequest`), 50 connections, FL_BENCH_SECONDS seconds (default 10) after a
 * FL_BENCH_WARMUP_S warm-up (default 2), client (autocannon, programmatic) in this process.
 *
 * Both servers run side by side and the load alternates between them, FL_BENCH_WEBHOOK_ROUNDS
 * rounds (default 2) of FL_BENCH_SECONDS each (the machine is shared). Measured against:
 * - baseline: a raw `node:http` server in a child process (`node dist/bench/webhook.js
 *   --baseline-server DB`) that reads the body, JSON.parses it and inserts the same event row
 *   (same columns, same indexes: openDatabase, WAL, synchronous=NORMAL) with a prepared
 *   statement, one row per request, then answers 202;
 * - faultline: the built daemon (`node dist/src/main.js serve`, nothing tailed).
 * Afterwards the events each one stored during the measured run are counted and compared with
 * the 2xx answers autocannon received (a request in flight when the run stopped may be stored
 * without its answer being counted, so stored is within [2xx, 2xx + in flight]).
 *
 * Env: FL_BENCH_SECONDS (default 10), FL_BENCH_WARMUP_S (default 2), FL_BENCH_CONNECTIONS (50),
 * FL_BENCH_WEBHOOK_ROUNDS (default 2).
 * Run: `node dist/bench/webhook.js [--json]`.
 */
import type BetterSqlite3 from "better-sqlite3"
import * as http from "node:http"
import { createRequire } from "node:module"
import * as path from "node:path"
import * as readline from "node:readline"
import { openDatabase } from "../src/store/Database.js"
import {
  type BenchResult,
  builtBench,
  categoryOf,
  envNumber,
  fetchJson,
  fnv,
  isMain,
  makeTempDir,
  note,
  plainLayout,
  ratioOf,
  removeTempDir,
  round,
  runStandalone,
  sleep,
  spawnTracked,
  startDaemon,
  stopChild
} from "./common.js"

/** The part of autocannon's programmatic API used here (the package ships no types). */
interface AutocannonResult {
  readonly requests: { readonly average: number; readonly total: number; readonly sent: number }
  readonly latency: { readonly p50: number; readonly p99: number }
  readonly "2xx": number
  readonly non2xx: number
  readonly errors: number
  readonly timeouts: number
}
type Autocannon = (opts: Record<string, unknown>) => Promise<AutocannonResult>
const autocannon = createRequire(import.meta.url)("autocannon") as Autocannon

const MESSAGE = "Request was rejected due to rate limiting. Details: TPM limit reached."

/** A realistic structured failure as a gateway or an SDK hook would send it; `n` makes it unique. */
const bodyOf = (prefix: string, n: number): string =>
  JSON.stringify({
    id: `${prefix}-${n}`,
    service: "chat-api",
    endpoint: "/v1/chat/completions",
    status: 429,
    body: { code: 50603, message: MESSAGE, data: null },
    model: "Qwen/Qwen2.5-7B-Instruct",
    requestId: `req-${prefix}-${n}`,
    stream: false
  })

// ---------------------------------------------------------------------------------------------
// the baseline server (child process)

const EVENT_SQL =
  `INSERT INTO events (id, occurred_at, ingested_at, source, line, service, status, code, message, model, request_id,
     endpoint, stream, category, rate_limit_kind, severity, retryable, action, fingerprint, body_not_json, sample)
   VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT (id) DO NOTHING`
const KIND_RE = /\b(RPM|RPH|RPD|TPM|TPD|IPM|IPD)\b/

const baselineServer = (dbFile: string): void => {
  const db: BetterSqlite3.Database = openDatabase(dbFile, plainLayout())
  const insert = db.prepare(EVENT_SQL)
  const count = db.prepare("SELECT count(*) FROM events").pluck()
  const server = http.createServer((req, res) => {
    if (req.method === "GET" && req.url === "/count") {
      res.writeHead(200, { "content-type": "application/json" })
      res.end(JSON.stringify({ count: count.get() }))
      return
    }
    const chunks: Buffer[] = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const text = (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString("utf8")
      let o: Record<string, any>
      try {
        o = JSON.parse(text)
      } catch {
        res.writeHead(400, { "content-type": "application/json" })
        res.end('{"error":{"code":"bad_json","message":"not JSON"}}')
        return
      }
      const now = Date.now()
      const status = typeof o.status === "number" ? o.status : null
      const b = typeof o.body === "object" && o.body !== null ? o.body : {}
      const message: string | null = typeof b.message === "string" ? b.message : null
      const category = categoryOf(status)
      const kind = category === "rate_limit" ? (KIND_RE.exec(message ?? "")?.[1] ?? "unknown") : null
      const changes = insert.run(
        String(o.id),
        now,
        now,
        "webhook",
        null,
        o.service ?? null,
        status,
        typeof b.code === "number" ? BigInt(b.code) : (b.code ?? null),
        message,
        o.model ?? null,
        o.requestId ?? null,
        o.endpoint ?? null,
        typeof o.stream === "boolean" ? (o.stream ? 1 : 0) : null,
        category,
        kind,
        "warning",
        1,
        "Slow down or wait",
        fnv(`${category}|${kind}|${status}|${b.code}|${o.model}|${o.service}|${(message ?? "").replace(/\d+/g, "#")}`),
        0,
        text
      ).changes
      res.writeHead(202, { "content-type": "application/json" })
      res.end(`{"accepted":${changes},"duplicates":${1 - changes},"rejected":[]}`)
    })
  })
  server.keepAliveTimeout = 30_000
  server.listen(0, "127.0.0.1", () => {
    process.stdout.write(`listening ${(server.address() as { port: number }).port}\n`)
  })
  const stop = (): void => {
    server.closeAllConnections()
    server.close(() => {
      db.close()
      process.exit(0)
    })
  }
  process.once("SIGTERM", stop)
  process.once("SIGINT", stop)
}

const startBaseline = async (dbFile: string) => {
  const proc = spawnTracked(process.execPath, [builtBench("webhook"), "--baseline-server", dbFile], { stdio: ["ignore", "pipe", "inherit"] })
  const port = await new Promise<number>((resolve, reject) => {
    const rl = readline.createInterface({ input: proc.stdout! })
    const timer = setTimeout(() => reject(new Error("the baseline server did not start within 15 s")), 15_000)
    rl.on("line", (l) => {
      const m = /^listening (\d+)$/.exec(l)
      if (m !== null) {
        clearTimeout(timer)
        resolve(Number(m[1]))
      }
    })
    proc.once("exit", (code) => reject(new Error(`the baseline server exited with ${code}`)))
  })
  const url = `http://127.0.0.1:${port}`
  return { url, pid: proc.pid!, count: async () => (await fetchJson<{ count: number }>(`${url}/count`)).count, stop: () => stopChild(proc) }
}

// ---------------------------------------------------------------------------------------------
// the load

interface Load {
  readonly rps: number
  readonly p50: number
  readonly p99: number
  readonly ok: number
  readonly non2xx: number
  readonly errors: number
  readonly timeouts: number
  readonly sent: number
  readonly completed: number
}

const load = async (url: string, prefix: string, seconds: number, connections: number): Promise<Load> => {
  let n = 0
  const result = await autocannon({
    url,
    connections,
    duration: seconds,
    timeout: 10,
    requests: [
      {
        method: "POST",
        path: "/v1/events",
        headers: { "content-type": "application/json" },
        setupRequest: (req: Record<string, unknown>) => ({ ...req, body: bodyOf(prefix, n++) })
      }
    ]
  })
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    ok: result["2xx"],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    sent: result.requests.sent,
    completed: result.requests.total
  }
}

// ---------------------------------------------------------------------------------------------

/** Rounds of one target, summed up: req/s over the whole measured time, p50/p99 as the mean of the rounds'. */
const combine = (rounds: ReadonlyArray<Load>, seconds: number): Load => {
  const sum = (f: (l: Load) => number) => rounds.reduce((a, l) => a + f(l), 0)
  const mean = (f: (l: Load) => number) => sum(f) / rounds.length
  return {
    rps: sum((l) => l.completed) / (seconds * rounds.length),
    p50: round(mean((l) => l.p50), 1),
    p99: round(mean((l) => l.p99), 1),
    ok: sum((l) => l.ok),
    non2xx: sum((l) => l.non2xx),
    errors: sum((l) => l.errors),
    timeouts: sum((l) => l.timeouts),
    sent: sum((l) => l.sent),
    completed: sum((l) => l.completed)
  }
}

export async function run(): Promise<Array<BenchResult>> {
  const seconds = envNumber("FL_BENCH_SECONDS", 10)
  const warmup = envNumber("FL_BENCH_WARMUP_S", 2)
  const connections = envNumber("FL_BENCH_CONNECTIONS", 50)
  const rounds = Math.round(envNumber("FL_BENCH_WEBHOOK_ROUNDS", 2))
  const dir = makeTempDir("faultline-bench-webhook-")
  // both servers run side by side; the load alternates between them (the machine is shared)
  const base = await startBaseline(path.join(dir, "baseline.db"))
  let daemon: Awaited<ReturnType<typeof startDaemon>> | null = null
  try {
    daemon = await startDaemon(dir, { tail: [] })
    const url = daemon.url
    const daemonStored = async () => (await fetchJson<{ total: number }>(`${url}/v1/report?since=30d`)).total
    await load(base.url, "warm-b", warmup, connections)
    await load(daemon.url, "warm-f", warmup, connections)
    await sleep(300)
    const bBefore = await base.count()
    const fBefore = await daemonStored()
    const bRounds: Load[] = []
    const fRounds: Load[] = []
    for (let i = 0; i < rounds; i++) {
      const b = await load(base.url, `b${i}`, seconds, connections)
      note(`webhook: round ${i + 1} baseline ${round(b.rps)} req/s, p99 ${b.p99} ms`)
      await sleep(200)
      const f = await load(daemon.url, `f${i}`, seconds, connections)
      note(`webhook: round ${i + 1} faultline ${round(f.rps)} req/s, p99 ${f.p99} ms`)
      await sleep(200)
      bRounds.push(b)
      fRounds.push(f)
    }
    await sleep(300)
    const bStored = (await base.count()) - bBefore
    const fStored = (await daemonStored()) - fBefore
    const b = combine(bRounds, seconds)
    const f = combine(fRounds, seconds)
    note(`webhook: faultline ${f.ok} 2xx, ${f.non2xx} non-2xx, ${f.errors} errors, ${fStored} stored; baseline ${b.ok} 2xx, ${bStored} stored`)

    const inFlight = (l: Load) => Math.max(0, l.sent - l.completed)
    const storedOk = (l: Load, s: number) => l.non2xx === 0 && s >= l.ok && s <= l.ok + inFlight(l)
    const tag = `${connections} conns, ${rounds}x${seconds}s, 1 event/request`
    return [
      { name: `webhook: faultline POST /v1/events req/s (${tag})`, value: Math.round(f.rps), unit: "req/s", baseline: Math.round(b.rps), ratio: ratioOf(f.rps, b.rps), goal: "ratio >= 0.5", met: f.rps / b.rps >= 0.5 },
      { name: "webhook: faultline p99 latency (mean of rounds)", value: f.p99, unit: "ms", baseline: b.p99, ratio: ratioOf(f.p99, b.p99, 2) },
      { name: "webhook: faultline p50 latency (mean of rounds)", value: f.p50, unit: "ms", baseline: b.p50, ratio: ratioOf(f.p50, b.p50, 2) },
      {
        name: `webhook: events stored by faultline / 2xx answers (${f.non2xx} non-2xx, ${f.errors} errors, ${inFlight(f)} in flight at stops)`,
        value: fStored,
        unit: "events",
        baseline: f.ok,
        ratio: ratioOf(fStored, f.ok, 4),
        goal: "2xx <= stored <= 2xx + in flight",
        met: storedOk(f, fStored)
      },
      {
        name: `webhook: rows stored by baseline / 2xx answers (${b.non2xx} non-2xx, ${inFlight(b)} in flight at stops)`,
        value: bStored,
        unit: "rows",
        baseline: b.ok,
        ratio: ratioOf(bStored, b.ok, 4),
        goal: "2xx <= stored <= 2xx + in flight",
        met: storedOk(b, bStored)
      }
    ]
  } finally {
    if (daemon !== null) {
      const code = await daemon.stop()
      if (code !== 0 && code !== null) note(`faultline exited with ${code} on SIGTERM`)
    }
    await base.stop()
    removeTempDir(dir)
  }
}

if (isMain(import.meta.url) && process.argv[2] === "--baseline-server") {
  baselineServer(process.argv[3]!)
} else {
  runStandalone(import.meta.url, run)
}
