/**
 * Tail-to-SQLite benchmark.
 *
 * A realistic mixed log of FL_BENCH_MB MB (default 200) is generated in a temp folder: mostly
 * ordinary pino JSON lines and plain text lines of varied length, ~5% failed calls of many shapes
 * (pino lines with status/body or err.status, a Fluent Bit record holding a Python SDK line,
 * Python SDK `Error code: 429 - {...}`, `HTTP 503 {...}`, `status=500 body={...}`, Chinese
 * messages, transport errors, multi-line HTML 504 pages, `curl -i` and `curl -v` dumps), each
 * with a unique request id, timestamps spread over the hour before now.
 *
 * Measured in the same run (the machine is shared: the baseline runs before and after the two
 * others and its mean time is used):
 * 1. baseline: a plain loop over the file (64 KiB reads, split lines on Buffers, JSON.parse of
 *    lines starting with `{`, a regex for status + body on text lines) inserting one row per
 *    failure found into the `events` table of a fresh database (openDatabase: same columns,
 *    same indexes, same pragmas) with a prepared statement, 5000 rows per transaction;
 * 2. faultline: the built daemon (`node dist/src/main.js serve`) tailing `<dir>/logs/*.log`
 *    (`startAt: "beginning"`): the file is renamed into the folder once the daemon is ready,
 *    and the ingest counters are polled (read-only SQLite connection, every 10 ms: the clock
 *    overshoots by ~5 ms on average, where a 50 ms poll cost faultline ~25 ms the baseline does
 *    not pay); the clock stops when every failure is stored, and polling goes on until every
 *    line is counted too
 *    (the last record is known complete only after the idle flush, a fixed 250 ms wait that is
 *    latency by design, reported in its own row); peak RSS is the daemon's VmHWM;
 * 3. `faultline replay` of the same file in-process: replayFile + EventStore.commit.
 *
 * Env: FL_BENCH_MB (default 200), FL_BENCH_TAIL_TIMEOUT_S (default 300).
 * Run: `node dist/bench/tail.js [--json]`.
 */
import BetterSqlite3 from "better-sqlite3"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { replayFile } from "../src/sources/tail/Tailer.js"
import { openDatabase } from "../src/store/Database.js"
import { EventStore } from "../src/store/EventStore.js"
import {
  type BenchResult,
  categoryOf,
  envNumber,
  fnv,
  fetchJson,
  makeTempDir,
  memoryOf,
  note,
  plainLayout,
  ratioOf,
  removeTempDir,
  rng,
  round,
  runStandalone,
  sampleMemory,
  sleep,
  startDaemon
} from "./common.js"

// ---------------------------------------------------------------------------------------------
// the log

const MODELS = [
  "Qwen/Qwen2.5-7B-Instruct",
  "deepseek-ai/DeepSeek-V3",
  "THUDM/glm-4-9b-chat",
  "Pro/MiniMaxAI/MiniMax-M2.5",
  "FunAudioLLM/CosyVoice2-0.5B",
  "black-forest-labs/FLUX.1-schnell"
]
const PATHS = ["/api/users/", "/api/orders/", "/api/sessions/", "/static/app.js?v=", "/api/documents/"]
const WORDS = [
  "tenant", "invoice", "document", "pipeline", "segment", "shard", "replica", "cursor", "payload", "snapshot", "chunk",
  "embedding", "vector", "index", "reranker", "prompt", "template", "session", "profile", "webhook", "schedule", "export",
  "archive", "bucket", "region", "cluster", "node", "worker", "lease", "token", "budget", "summary", "draft", "review"
]
const KINDS = ["RPM", "TPM", "RPD", "TPD", "IPM"]

export interface GeneratedLog {
  readonly lines: number
  /** Failed-call records written (a multi-line dump is one). */
  readonly failures: number
  /** Successful calls written (records that show a 2xx answer of the LLM API): counted, not stored. */
  readonly calls?: number
  readonly bytes: number
}

export const pad = (n: number, w = 2): string => String(n).padStart(w, "0")
/** `2026-11-21 10:00:00,123` (UTC), the Java/Python logging style. */
export const textTs = (ms: number): string => {
  const d = new Date(ms)
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())},${pad(d.getUTCMilliseconds(), 3)}`
}
const httpDate = (ms: number): string => new Date(ms).toUTCString()

/**
 * Writes `bytes` bytes (rounded up to a whole record) of mixed log to `file`. Deterministic for a
 * given seed, except the timestamps (the hour before `endMs`).
 */
export const generateLog = (file: string, bytes: number, endMs = Date.now(), seed = 7): GeneratedLog => {
  const r = rng(seed)
  const pick = <A>(xs: ReadonlyArray<A>): A => xs[Math.floor(r() * xs.length)]!
  const int = (n: number): number => Math.floor(r() * n)
  const hex = (n: number): string => {
    let s = ""
    for (let i = 0; i < n; i++) s += "0123456789abcdef"[int(16)]
    return s
  }
  const words = (n: number): string => {
    let s = pick(WORDS)
    for (let i = 1; i < n; i++) s += " " + pick(WORDS)
    return s
  }
  const startMs = endMs - 3_600_000
  const fd = fs.openSync(file, "w")
  let written = 0
  let lines = 0
  let failures = 0
  let calls = 0
  let seq = 0
  try {
    while (written < bytes) {
      const out: string[] = []
      const t0 = startMs + Math.floor((written / bytes) * 3_600_000)
      let chunkChars = 0
      while (chunkChars < 1 << 20) {
        const t = t0 + int(50)
        seq++
        const reqId = `req-${seq.toString(36)}${hex(4)}`
        const model = pick(MODELS)
        const x = r()
        const rec: string[] = []
        if (x < 0.95) {
          // ordinary records
          const y = r()
          if (y < 0.16) {
            rec.push(JSON.stringify({ level: 30, time: t, pid: 4711, hostname: "chat-api-7d9f8", name: "chat-api", reqId, req: { method: pick(["GET", "POST"]), url: pick(PATHS) + int(100000), remoteAddress: `10.0.${int(9)}.${int(250)}` }, res: { statusCode: pick([200, 200, 200, 201, 204, 304]) }, responseTime: int(20000) / 10, msg: "request completed" }))
          } else if (y < 0.3) {
            rec.push(JSON.stringify({ level: 30, time: t, pid: 4711, hostname: "chat-api-7d9f8", name: "chat-api", reqId, model, stream: r() < 0.5, promptTokens: int(3000), completionTokens: int(800), durationMs: int(9000), msg: "chat completion ok" }))
          } else if (y < 0.4) {
            rec.push(JSON.stringify({ level: 20, time: t, pid: 4711, hostname: "chat-api-7d9f8", name: "chat-api", reqId, key: `session:${hex(12)}`, hit: r() < 0.8, msg: "cache lookup" }))
          } else if (y < 0.46) {
            rec.push(JSON.stringify({ level: 30, time: t, pid: 4711, hostname: "chat-api-7d9f8", name: "chat-api", queue: pick(["jobs", "emails", "exports"]), depth: int(400), msg: "queue depth sampled" }))
          } else if (y < 0.5) {
            rec.push(JSON.stringify({ level: "info", timestamp: new Date(t).toISOString(), service: "rag-worker", event: "retrieval done", request_id: reqId, documents: int(40), tookMs: int(900), query: words(3 + int(12)) }))
          } else if (y < 0.64) {
            rec.push(`${textTs(t)} INFO  [worker-${int(8)}] app.jobs - processed batch ${int(99999)} (${int(5000)} items) in ${int(900)}ms request_id=${reqId}`)
          } else if (y < 0.72) {
            // a successful call of the LLM API, with its status: counted by both sides
            calls++
            rec.push(`${textTs(t)} DEBUG [http] app.client - POST https://api.siliconflow.cn/v1/chat/completions model=${model} stream=${r() < 0.5} status=200 in ${int(9000)}ms request_id=${reqId}`)
          } else if (y < 0.78) {
            rec.push(`10.0.${int(9)}.${int(250)} - - [${httpDate(t)}] "GET ${pick(PATHS)}${int(100000)} HTTP/1.1" ${pick([200, 200, 304])} ${int(90000)} "-" "Mozilla/5.0 (X11; Linux x86_64)" rid=${reqId}`)
          } else if (y < 0.86) {
            // long lines of varied length
            rec.push(`${textTs(t)} INFO  [audit] app.audit - request_id=${reqId} user=u${int(99999)} action=${pick(WORDS)}.${pick(WORDS)} details="${words(10 + int(90))}"`)
          } else if (y < 0.93) {
            rec.push(`${textTs(t)} ${pick(["INFO ", "DEBUG"])} [scheduler] app.cron - tick ${seq}`)
          } else if (y < 0.97) {
            rec.push(`${textTs(t)} WARN  [gc] runtime - heap used ${int(900)} MB of 2048 MB after ${int(40)} collections`)
          } else {
            rec.push(
              `${textTs(t)} WARN  [jobs] app.Indexer - slow ${pick(WORDS)} query, request_id=${reqId}`,
              `    at Query.run (/app/dist/db/query.js:${int(400)}:${int(40)})`,
              `    at Indexer.refresh (/app/dist/indexer.js:${int(400)}:${int(40)})`,
              `    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)`
            )
          }
        } else {
          failures++
          const kind = pick(KINDS)
          const y = int(12)
          switch (y) {
            case 0:
              rec.push(JSON.stringify({ level: 50, time: t, pid: 4711, hostname: "chat-api-7d9f8", name: "chat-api", reqId, upstream: "https://api.siliconflow.cn/v1/chat/completions", status: 429, body: { code: 50603, message: `Request was rejected due to rate limiting. Details: ${kind} limit reached.`, data: null }, model, msg: "upstream call failed" }))
              break
            case 1:
              rec.push(JSON.stringify({ level: 50, time: t, pid: 4711, hostname: "chat-api-7d9f8", name: "chat-api", reqId, err: { type: "APIError", message: "503 System is too busy now. Please try again later.", stack: "Error: 503 System is too busy now.\n    at APIError.generate (/app/node_modules/openai/error.js:51:20)", status: 503, error: { code: 50508, message: "System is too busy now. Please try again later.", data: null } }, model, msg: "chat completion failed" }))
              break
            case 2:
              rec.push(JSON.stringify({ level: "error", timestamp: new Date(t).toISOString(), service: "tts-worker", request_id: reqId, message: `upstream 400: {"code":20012,"message":"Model does not exist. Please check it carefully.","data":null}`, model: `${model}-preview` }))
              break
            case 3:
              rec.push(JSON.stringify({ log: `${textTs(t)} ERROR openai._base_client: Error code: 401 - {'error': {'message': 'Invalid API key', 'type': 'invalid_request_error', 'request_id': '${reqId}'}}\n`, stream: "stderr", time: new Date(t).toISOString(), kubernetes: { pod_name: "rag-5f6d", labels: { app: "rag" } } }))
              break
            case 4:
              rec.push(`${textTs(t)} ERROR [llm] app.agent - openai.RateLimitError: Error code: 429 - {'error': {'message': 'Rate limit reached for ${model} on requests per min (RPM): Limit 500, Used 500, Requested 1. Please try again in ${int(900)}ms.', 'type': 'requests', 'param': None, 'code': 'rate_limit_exceeded'}} (request_id=${reqId})`)
              break
            case 5:
              rec.push(`${textTs(t)} ERROR [http] app.client - chat completion failed request_id=${reqId} model=${model} HTTP 503 {"code":50508,"message":"System is too busy now. Please try again later.","data":null}`)
              break
            case 6:
              rec.push(`${textTs(t)} ERROR [http] app.client - upstream error request_id=${reqId} status=500 body={"code":50500,"message":"Internal server error (trace ${hex(16)})","data":null}`)
              break
            case 7:
              rec.push(`${textTs(t)} ERROR [对话服务] 调用失败：HTTP 403，返回：{"code":30003,"message":"根据相关法律法规，使用该模型需完成实名认证","data":null} 请求编号：${reqId}`)
              break
            case 8:
              rec.push(`${textTs(t)} WARN  [llm] app.client - request ${reqId} to https://api.siliconflow.cn/v1/chat/completions failed, reason: connect ECONNREFUSED 10.0.${int(9)}.${int(250)}:443`)
              break
            case 9:
              rec.push(
                `${textTs(t)} ERROR gateway.proxy - upstream returned an error page for ${reqId}:`,
                "<html>",
                "<head><title>504 Gateway Time-out</title></head>",
                "<body>",
                "<center><h1>504 Gateway Time-out</h1></center>",
                "<hr><center>openresty</center>",
                "</body>",
                "</html>"
              )
              break
            case 10:
              rec.push(
                "HTTP/2 429",
                `date: ${httpDate(t)}`,
                "content-type: application/json; charset=utf-8",
                `x-request-id: ${reqId}`,
                "",
                "{",
                '  "code": 50603,',
                `  "message": "Request was rejected due to rate limiting. Details: ${kind} limit reached.",`,
                '  "data": null',
                "}"
              )
              break
            default:
              rec.push(
                "*   Trying 203.0.113.10:443...",
                "* Connected to api.siliconflow.cn (203.0.113.10) port 443 (#0)",
                "> POST /v1/chat/completions HTTP/2",
                "> Host: api.siliconflow.cn",
                "> authorization: Bearer sk-1f2e3d4c5b6a79880776655443322110",
                "> content-type: application/json",
                ">",
                "< HTTP/2 400",
                `< date: ${httpDate(t)}`,
                "< content-type: application/json; charset=utf-8",
                `< x-request-id: ${reqId}`,
                "<",
                '{"code":20012,"message":"Model does not exist. Please check it carefully.","data":null}',
                "* Connection #0 to host api.siliconflow.cn left intact"
              )
          }
        }
        for (const l of rec) {
          out.push(l)
          chunkChars += l.length + 1
        }
        lines += rec.length
      }
      const text = out.join("\n") + "\n"
      written += fs.writeSync(fd, text)
    }
  } finally {
    fs.closeSync(fd)
  }
  return { lines, failures, calls, bytes: written }
}

// ---------------------------------------------------------------------------------------------
// baseline: a plain loop, same file, same table

const EVENT_SQL =
  `INSERT INTO events (id, occurred_at, ingested_at, source, line, service, status, code, message, model, request_id,
     endpoint, stream, category, rate_limit_kind, severity, retryable, action, fingerprint, body_not_json, sample)
   VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`

const TEXT_RE = /(?:HTTP |Error code: |status=|upstream )(\d{3})\b[^{]*(\{.*\})?/
const STATUS_LINE_RE = /^(?:< )?HTTP\/[\d.]+ (\d{3})/
const TITLE_RE = /<title>(\d{3}) ([^<]*)<\/title>/
const TRANSPORT_RE = /\b(ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENOTFOUND)\b/
const TEXT_TS_RE = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d),(\d{3})/

interface Found {
  status: number | null
  code: number | string | null
  message: string | null
  model: string | null
  requestId: string | null
  occurredAt: number
  bodyNotJson: boolean
}

const fromBody = (body: unknown): { code: number | string | null; message: string | null } => {
  if (typeof body === "string") {
    try {
      body = JSON.parse(body)
    } catch {
      return { code: null, message: body as string }
    }
  }
  if (body === null || typeof body !== "object") return { code: null, message: null }
  const b = body as Record<string, any>
  const e = typeof b.error === "object" && b.error !== null ? b.error : b
  return { code: e.code ?? null, message: typeof e.message === "string" ? e.message : null }
}

const textTime = (line: string, fallback: number): number => {
  const m = TEXT_TS_RE.exec(line)
  return m === null ? fallback : Date.parse(`${m[1]}T${m[2]}.${m[3]}Z`)
}

/** The plain loop's successful calls: per minute and model, one upsert each per batch. */
type Calls = Map<string, { minute: number; model: string | null; ok: number }>
const CALL_MODEL_RE = /model=(\S+)/
const countCall = (calls: Calls, at: number, model: string | null): void => {
  const minute = at - (at % 60_000)
  const key = `${minute}|${model}`
  const c = calls.get(key)
  if (c === undefined) calls.set(key, { minute, model, ok: 1 })
  else c.ok++
}
let plainCalls: Calls = new Map()

/** One line of text -> a failure, or null (a successful call of the API is counted). */
const scanText = (line: string, now: number): Found | null => {
  let m = TEXT_RE.exec(line)
  if (m !== null) {
    const status = Number(m[1])
    if (status < 400) {
      if (line.includes("/chat/completions")) countCall(plainCalls, textTime(line, now), CALL_MODEL_RE.exec(line)?.[1] ?? null)
      return null
    }
    let body = { code: null as number | string | null, message: null as string | null }
    if (m[2] !== undefined) body = fromBody(m[2].includes("'") ? m[2].replace(/'/g, '"').replace(/None/g, "null") : m[2])
    return { status, ...body, model: null, requestId: null, occurredAt: textTime(line, now), bodyNotJson: false }
  }
  m = STATUS_LINE_RE.exec(line)
  if (m !== null) {
    const status = Number(m[1])
    return status >= 400 ? { status, code: null, message: null, model: null, requestId: null, occurredAt: now, bodyNotJson: false } : null
  }
  m = TITLE_RE.exec(line)
  if (m !== null) return { status: Number(m[1]), code: null, message: m[2]!, model: null, requestId: null, occurredAt: now, bodyNotJson: true }
  m = TRANSPORT_RE.exec(line)
  if (m !== null) return { status: null, code: m[1]!, message: line.slice(line.indexOf(" - ") + 3), model: null, requestId: null, occurredAt: textTime(line, now), bodyNotJson: false }
  return null
}

/** One JSON log line -> a failure, or null. */
const scanJson = (line: string, now: number): Found | null => {
  let o: Record<string, any>
  try {
    o = JSON.parse(line)
  } catch {
    return null // a line of a pretty-printed body
  }
  if (o === null || typeof o !== "object") return null
  const status = o.status ?? o.statusCode ?? o.err?.status ?? null
  if (typeof status === "number" && status >= 400) {
    const body = fromBody(o.body ?? o.err?.error ?? o.error)
    return { status, ...body, model: o.model ?? null, requestId: o.reqId ?? o.request_id ?? o.requestId ?? null, occurredAt: typeof o.time === "number" ? o.time : now, bodyNotJson: false }
  }
  const text = o.log ?? o.message
  if (typeof text === "string") {
    const f = scanText(text, now)
    if (f !== null) {
      f.model = o.model ?? null
      f.requestId = o.request_id ?? o.reqId ?? null
      if (typeof o.timestamp === "string") f.occurredAt = Date.parse(o.timestamp)
    }
    return f
  }
  return null
}

/** One aggregate row per fingerprint, as faultline's incidents: the plain loop's "one upsert per failure". */
const INCIDENT_UPSERT_SQL =
  `INSERT INTO incidents (fingerprint, category, severity, retryable, status, code, model, message, action, count,
     first_seen, last_seen, sample, sample_event_id)
   VALUES (?,?,?,?,?,?,?,?,?,1,?,?,?,?)
   ON CONFLICT (fingerprint) DO UPDATE SET count = count + 1, first_seen = min(first_seen, excluded.first_seen),
     last_seen = max(last_seen, excluded.last_seen), message = excluded.message, sample = excluded.sample,
     sample_event_id = excluded.sample_event_id`

export interface PlainLoopOptions {
  /** Also one aggregate upsert (the incident row of the failure's fingerprint) per failure. Default false (the tail bench). */
  readonly aggregate?: boolean
}

/** The plain loop: returns lines read and rows inserted. */
export const plainLoop = (file: string, dbFile: string, opts: PlainLoopOptions = {}): { lines: number; failures: number } => {
  const db = openDatabase(dbFile, plainLayout())
  const insert = db.prepare(EVENT_SQL)
  const upsert = opts.aggregate === true ? db.prepare(INCIDENT_UPSERT_SQL) : null
  const upsertCalls = db.prepare(
    `INSERT INTO calls_minute (t, key, ok, failed) VALUES (?, ?, ?, 0) ON CONFLICT (t, key) DO UPDATE SET ok = ok + excluded.ok`
  )
  const callKeys = new Map<string | null, number>()
  const source = `file:${path.resolve(file)}`
  type Row = [Found, number, string]
  const flush = db.transaction((rows: ReadonlyArray<Row>) => {
    const now = Date.now()
    for (const c of plainCalls.values()) {
      let key = callKeys.get(c.model)
      if (key === undefined) callKeys.set(c.model, (key = callKeys.size + 1))
      upsertCalls.run(c.minute, key, c.ok)
    }
    plainCalls = new Map()
    for (const [f, lineNo, sample] of rows) {
      const category = categoryOf(f.status)
      const message = f.message
      const id = `${source}:${lineNo}`
      const code = typeof f.code === "number" ? BigInt(f.code) : f.code
      const severity = category === "invalid_request" ? "info" : "warning"
      const retryable = category === "overload" || category === "rate_limit" || category === "transport" ? 1 : 0
      const fingerprint = fnv(`${category}|${f.status}|${f.code}|${f.model}|${message === null ? "" : message.replace(/\d+/g, "#")}`)
      const cut = sample.length > 4096 ? sample.slice(0, 4096) : sample
      insert.run(
        id,
        f.occurredAt,
        now,
        source,
        lineNo,
        null,
        f.status,
        code,
        message,
        f.model,
        f.requestId,
        null,
        null,
        category,
        null,
        severity,
        retryable,
        "read message",
        fingerprint,
        f.bodyNotJson ? 1 : 0,
        cut
      )
      upsert?.run(fingerprint, category, severity, retryable, f.status, code, f.model, message, "read message", f.occurredAt, f.occurredAt, cut, id)
    }
  })
  const fd = fs.openSync(file, "r")
  const CHUNK = 64 * 1024
  let buf = Buffer.allocUnsafe(CHUNK * 2)
  let carry = 0
  let pos = 0
  let lines = 0
  let failures = 0
  let rows: Row[] = []
  const now = Date.now()
  try {
    for (;;) {
      if (buf.length - carry < CHUNK) {
        const bigger = Buffer.allocUnsafe(buf.length * 2)
        buf.copy(bigger, 0, 0, carry)
        buf = bigger
      }
      const n = fs.readSync(fd, buf, carry, CHUNK, pos)
      if (n === 0) break
      pos += n
      const end = carry + n
      let start = 0
      let nl = buf.indexOf(10, 0)
      while (nl !== -1 && nl < end) {
        lines++
        const line = buf.toString("utf8", start, nl)
        const f = line.charCodeAt(0) === 123 ? scanJson(line, now) : scanText(line, now)
        if (f !== null) {
          rows.push([f, lines, line])
          failures++
          if (rows.length === 5000) {
            flush(rows)
            rows = []
          }
        }
        start = nl + 1
        nl = buf.indexOf(10, start)
      }
      carry = end - start
      buf.copyWithin(0, start, end)
    }
    if (rows.length > 0 || plainCalls.size > 0) flush(rows)
  } finally {
    fs.closeSync(fd)
    db.close()
  }
  return { lines, failures }
}

// ---------------------------------------------------------------------------------------------
// faultline

/** How often the daemon's ingest counters are polled: a cheap query, and the clock's resolution. */
const POLL_MS = 10

export interface DaemonRun {
  /** From the file's arrival (or, with `fileBeforeStart`, the daemon's spawn) until every failure is stored. */
  readonly seconds: number
  /** With `fileBeforeStart`: spawn until `/readyz` answered (NaN otherwise). */
  readonly readySeconds: number
  /** The daemon's database (still there after the run; the daemon is stopped). */
  readonly dbPath: string
  /** Until every line is counted as well (the last record waits for the idle flush). */
  readonly linesSeconds: number
  readonly lines: number
  readonly failures: number
  /** NaN with `fileBeforeStart` (the daemon is never idle). */
  readonly idleRssMb: number
  readonly peakRssMb: number
  readonly sampledPeakRssMb: number
  /** The daemon's CPU time when the clock stopped (start-up included). */
  readonly cpuSeconds: number
  /** CPU seconds of the main thread, the scan worker and the rest (threadCpuOf). */
  readonly threads: { readonly main: number; readonly worker: number; readonly others: number }
  readonly reportLinesRead: number
  readonly reportTotal: number
  /** The report's calls (failed and successful) over the run. */
  readonly reportCalls: number
}

export interface DaemonOptions {
  /**
   * Put the log in place before the daemon starts and start the clock at its spawn, so start-up
   * is included (the storm bench). Default false: the file arrives once the daemon is ready and idle.
   */
  readonly fileBeforeStart?: boolean
}

/** The built daemon tailing `<dir>/logs/*.log` from the beginning, `generated` moved there as app.log. */
/**
 * CPU time (user + system, every thread) a process has used, from /proc: on a machine shared with
 * other work, wall time says how fast; CPU time says how much work, which is steadier.
 */
export const cpuSecondsOf = (pid: number): number => {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return (Number(f[11]) + Number(f[12])) / 100
  } catch {
    return NaN
  }
}

/**
 * CPU seconds by thread name (`/proc/<pid>/task/*`): the main thread (the process's own name),
 * the scan worker (a `worker_threads` thread is named `node` + nothing else here, so it is told
 * apart as the busiest of the rest) and V8's and libuv's helpers together.
 */
export const threadCpuOf = (pid: number): { main: number; worker: number; others: number } => {
  const out = { main: 0, worker: 0, others: 0 }
  try {
    const rest: number[] = []
    for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
      const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8")
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
      const cpu = (Number(f[11]) + Number(f[12])) / 100
      if (Number(tid) === pid) out.main = cpu
      else rest.push(cpu)
    }
    rest.sort((a, b) => b - a)
    out.worker = rest[0] ?? 0
    out.others = rest.slice(1).reduce((a, b) => a + b, 0)
  } catch {
    // the process is gone
  }
  return out
}

export const runDaemon = async (dir: string, generated: string, expect: Pick<GeneratedLog, "lines" | "failures">, timeoutMs: number, opts: DaemonOptions = {}): Promise<DaemonRun> => {
  const logs = path.join(dir, "logs")
  fs.mkdirSync(logs, { recursive: true })
  const early = opts.fileBeforeStart === true
  let t0 = 0
  if (early) {
    fs.renameSync(generated, path.join(logs, "app.log"))
    t0 = performance.now()
  }
  const daemon = await startDaemon(dir, { tail: [{ path: path.join(logs, "*.log"), startAt: "beginning" }] })
  const readySeconds = early ? (performance.now() - t0) / 1000 : NaN
  let counters: BetterSqlite3.Database | null = null
  try {
    counters = new BetterSqlite3(daemon.dbPath, { readonly: true, fileMustExist: true })
    const totals = counters.prepare("SELECT coalesce(sum(lines_read), 0) AS lines, coalesce(sum(failures), 0) AS failures FROM ingest_counters")
    let idle: ReturnType<typeof memoryOf> = null
    if (!early) {
      await sleep(300) // let the idle daemon settle before its idle RSS is taken
      idle = memoryOf(daemon.pid)
    }
    const mem = sampleMemory(daemon.pid, 100)
    if (!early) {
      t0 = performance.now()
      fs.renameSync(generated, path.join(logs, "app.log"))
    }
    let last = { lines: 0, failures: 0 }
    let stableSince = performance.now()
    // the clock stops when every failure is stored (the issue's measure); the last record's lines
    // are counted once it is known to be complete, i.e. after the tailer's idle flush (250 ms)
    let tFailures = 0
    let tLines = 0
    for (;;) {
      await sleep(POLL_MS)
      const now = performance.now()
      const cur = totals.get() as { lines: number; failures: number }
      if (cur.lines !== last.lines || cur.failures !== last.failures) stableSince = now
      last = cur
      if (tFailures === 0 && cur.failures >= expect.failures) tFailures = now
      if (cur.lines >= expect.lines && tFailures !== 0) {
        tLines = now
        break
      }
      // every line read but fewer failures stored than written: settle, then report what is there
      if (cur.lines >= expect.lines && now - stableSince > 2000) {
        tFailures = tLines = stableSince
        break
      }
      if (daemon.proc.exitCode !== null) throw new Error(`faultline exited with ${daemon.proc.exitCode}: ${daemon.tail()}`)
      if (now - t0 > timeoutMs) {
        throw new Error(`faultline did not finish within ${timeoutMs} ms: ${cur.lines}/${expect.lines} lines, ${cur.failures}/${expect.failures} failures`)
      }
    }
    const memory = mem.stop()
    const cpuSeconds = cpuSecondsOf(daemon.pid)
    const threads = threadCpuOf(daemon.pid)
    const report = await fetchJson<{ total: number; calls: number; ingest: { linesRead: number } }>(`${daemon.url}/v1/report?since=30d`)
    return {
      seconds: (tFailures - t0) / 1000,
      readySeconds,
      dbPath: daemon.dbPath,
      linesSeconds: (tLines - t0) / 1000,
      lines: last.lines,
      failures: last.failures,
      idleRssMb: idle?.rssMb ?? NaN,
      peakRssMb: memory.hwmMb,
      sampledPeakRssMb: memory.peakRssMb,
      cpuSeconds,
      threads,
      reportLinesRead: report.ingest.linesRead,
      reportTotal: report.total,
      reportCalls: report.calls
    }
  } finally {
    counters?.close()
    const code = await daemon.stop()
    if (code !== 0 && code !== null) note(`faultline exited with ${code} on SIGTERM`)
  }
}

// ---------------------------------------------------------------------------------------------

export async function run(): Promise<Array<BenchResult>> {
  const mb = envNumber("FL_BENCH_MB", 200)
  const timeoutMs = envNumber("FL_BENCH_TAIL_TIMEOUT_S", 300) * 1000
  const dir = makeTempDir("faultline-bench-tail-")
  try {
    const gen = path.join(dir, "gen")
    fs.mkdirSync(gen)
    const file = path.join(gen, "app.log")
    let t = performance.now()
    const log = generateLog(file, Math.round(mb * 1024 * 1024))
    note(`tail: generated ${round(log.bytes / 1048576, 1)} MB, ${log.lines} lines, ${log.failures} failed-call records in ${round((performance.now() - t) / 1000, 1)} s`)

    // the machine is shared: the baseline runs before and after faultline, and its mean is used
    fs.readFileSync(file) // the same warm page cache for everyone
    const plain = (label: string, from: string) => {
      const t0 = performance.now()
      const c0 = process.cpuUsage()
      const r = plainLoop(from, path.join(dir, `baseline-${label}.db`))
      const s = (performance.now() - t0) / 1000
      const c = process.cpuUsage(c0)
      const cpu = (c.user + c.system) / 1e6
      fs.rmSync(path.join(dir, `baseline-${label}.db`), { force: true })
      for (const ext of ["-wal", "-shm"]) fs.rmSync(path.join(dir, `baseline-${label}.db${ext}`), { force: true })
      note(`tail: plain loop (${label}) ${r.lines} lines, ${r.failures} rows in ${round(s, 2)} s (CPU ${round(cpu, 2)} s)`)
      if (r.lines !== log.lines) throw new Error(`plain loop read ${r.lines} lines, ${log.lines} were written`)
      return { ...r, s, cpu }
    }
    const before = plain("before", file)

    // the daemon
    const d = await runDaemon(dir, file, log, timeoutMs)
    note(`tail: faultline ${d.lines} lines, ${d.failures} failures in ${round(d.seconds, 2)} s, VmHWM ${round(d.peakRssMb)} MB, CPU ${round(d.cpuSeconds, 2)} s (main ${round(d.threads.main, 2)}, scan worker ${round(d.threads.worker, 2)}, others ${round(d.threads.others, 2)})`)
    const tailed = path.join(dir, "logs", "app.log")

    // replay, in-process
    const db = openDatabase(path.join(dir, "replay.db"))
    const store = new EventStore(db)
    let stored = 0
    t = performance.now()
    const summary = await Effect.runPromise(
      replayFile(tailed, (batch) =>
        Effect.sync(() => {
          stored += store.commit([batch]).inserted.length
        })
      )
    )
    const replayS = (performance.now() - t) / 1000
    db.close()
    note(`tail: replay ${summary.lines} lines, ${stored} failures stored in ${round(replayS, 2)} s`)

    const after = plain("after", tailed)
    const base = { lines: before.lines, failures: before.failures }
    const baseS = (before.s + after.s) / 2

    const baseLps = base.lines / baseS
    const baseFps = base.failures / baseS
    const lps = d.lines / d.seconds
    const fps = d.failures / d.seconds
    const rLps = summary.lines / replayS
    const tag = `${round(log.bytes / 1048576)} MB, ${log.lines} lines`
    return [
      { name: `tail: faultline daemon lines/s (${tag})`, value: Math.round(lps), unit: "lines/s", baseline: Math.round(baseLps), ratio: ratioOf(lps, baseLps), goal: "ratio >= 0.8", met: lps / baseLps >= 0.8 },
      { name: "tail: faultline daemon failures/s", value: Math.round(fps), unit: "failures/s", baseline: Math.round(baseFps), ratio: ratioOf(fps, baseFps) },
      { name: "tail: CPU time, every thread (baseline: the plain loop's)", value: round(d.cpuSeconds, 2), unit: "s", baseline: round((before.cpu + after.cpu) / 2, 2), ratio: ratioOf(d.cpuSeconds, (before.cpu + after.cpu) / 2) },
      { name: "tail: faultline daemon MB/s", value: round(log.bytes / 1048576 / d.seconds, 1), unit: "MB/s", baseline: round(log.bytes / 1048576 / baseS, 1), ratio: ratioOf(baseS, d.seconds) },
      { name: "tail: every line counted (s; the last record waits for the idle flush)", value: round(d.linesSeconds, 2), unit: "s", baseline: round(d.seconds, 2), ratio: ratioOf(d.linesSeconds, d.seconds) },
      { name: "tail: faultline daemon peak RSS (VmHWM)", value: round(d.peakRssMb, 1), unit: "MB", baseline: round(d.idleRssMb, 1), ratio: ratioOf(d.peakRssMb, d.idleRssMb), goal: "< 200 MB (baseline: idle RSS)", met: d.peakRssMb < 200 },
      { name: "tail: failures stored by faultline / written", value: d.failures, unit: "events", baseline: log.failures, ratio: ratioOf(d.failures, log.failures, 4), goal: "= written", met: d.failures === log.failures },
      { name: "tail: report ingest.linesRead / lines written", value: d.reportLinesRead, unit: "lines", baseline: log.lines, ratio: ratioOf(d.reportLinesRead, log.lines, 4), goal: "= written", met: d.reportLinesRead === log.lines && d.reportTotal === d.failures },
      ...(log.calls === undefined
        ? []
        : [{ name: "tail: report calls / calls written (successes + failures)", value: d.reportCalls, unit: "calls", baseline: log.calls + log.failures, ratio: ratioOf(d.reportCalls, log.calls + log.failures, 4), goal: "= written", met: d.reportCalls === log.calls + log.failures }]),
      { name: "tail: faultline replay (in-process, replayFile + commit) lines/s", value: Math.round(rLps), unit: "lines/s", baseline: Math.round(baseLps), ratio: ratioOf(rLps, baseLps) }
    ]
  } finally {
    removeTempDir(dir)
  }
}

runStandalone(import.meta.url, run)
