/**
 * Store benchmark.
 *
 * 1. commit throughput (events/s) in batches of 1000 and 5000 into a fresh database, beside a
 *    plain better-sqlite3 loop inserting the same rows into the same `events` table (same
 *    indexes, same pragmas) in the same run: `ratio` = ours / plain loop.
 * 2. report() and friends over N stored events (env FL_BENCH_EVENTS, default 1_000_000) of
 *    realistic mixed failures spread over 7 days, filled through commit() in big transactions.
 *
 * Run: `npx vite-node bench/store.ts` (or import { run }).
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import type { Category, FailureEvent, RateLimitKind, Severity } from "../src/classify/Event.js"
import type { IngestBatch } from "../src/sources/Batch.js"
import { openDatabase } from "../src/store/Database.js"
import { EventStore } from "../src/store/EventStore.js"
import { type BenchResult, plainLayout } from "./common.js"


const HOUR = 3_600_000
const DAY = 86_400_000

// ---------------------------------------------------------------------------------------------
// realistic mixed events

interface Kind {
  readonly weight: number
  readonly category: Category
  readonly status: number | null
  readonly code: number | string | null
  readonly kind: RateLimitKind | null
  readonly severity: Severity
  readonly retryable: boolean
  readonly message: (n: number, model: string) => string
  readonly action: string
}

const KINDS: ReadonlyArray<Kind> = [
  { weight: 30, category: "rate_limit", status: 429, code: 50603, kind: "TPM", severity: "warning", retryable: true,
    message: (n) => `Request was rejected due to rate limiting. Details: TPM limit reached. Used ${n} tokens.`, action: "Slow down or wait: the tokens-per-minute limit was hit." },
  { weight: 12, category: "rate_limit", status: 429, code: 50603, kind: "RPM", severity: "warning", retryable: true,
    message: () => "Request was rejected due to rate limiting. If you want more, please contact us. Details: RPM limit reached.", action: "Slow down or wait: the requests-per-minute limit was hit." },
  { weight: 2, category: "rate_limit", status: 429, code: 50603, kind: "TPD", severity: "critical", retryable: false,
    message: () => "Request was rejected due to rate limiting. Details: TPD limit reached.", action: "Wait for the daily limit to reset." },
  { weight: 15, category: "overload", status: 503, code: 50505, kind: null, severity: "warning", retryable: true,
    message: () => "Model service overloaded. Please try again later.", action: "Retry later with backoff; for chat use stream: true." },
  { weight: 4, category: "overload", status: 504, code: null, kind: null, severity: "warning", retryable: true,
    message: () => "Gateway Timeout", action: "Retry later with backoff; for chat use stream: true." },
  { weight: 10, category: "invalid_request", status: 400, code: 20015, kind: null, severity: "info", retryable: false,
    message: (n) => `max_tokens (${n}) exceeds the model's limit`, action: "Correct the request parameters according to message." },
  { weight: 4, category: "model_not_found", status: 400, code: 20012, kind: null, severity: "warning", retryable: false,
    message: () => "Model does not exist. Please check it carefully.", action: "Correct the model parameter." },
  { weight: 8, category: "transport", status: null, code: "ECONNRESET", kind: null, severity: "warning", retryable: true,
    message: () => "read ECONNRESET", action: "Check the network path; if a proxy is enabled, disable it and retry." },
  { weight: 5, category: "server_error", status: 500, code: 50500, kind: null, severity: "critical", retryable: true,
    message: (n) => `Internal server error (trace ${n})`, action: "Escalate to the operator: a ticket is opened." },
  { weight: 3, category: "auth_key", status: 401, code: null, kind: null, severity: "critical", retryable: false,
    message: () => "Invalid token", action: "Fix the API key." },
  { weight: 3, category: "quota", status: 403, code: 30001, kind: null, severity: "critical", retryable: false,
    message: () => "Sorry, your account balance is insufficient", action: "Top up or raise the quota; retrying will not help." },
  { weight: 1, category: "auth_realname", status: 403, code: 30011, kind: null, severity: "warning", retryable: false,
    message: () => "该模型需要实名认证", action: "Complete real-name authentication of the account." },
  { weight: 2, category: "permission", status: 403, code: 30003, kind: null, severity: "warning", retryable: false,
    message: () => "Model disabled.", action: "Read message; fix the permission it names." },
  { weight: 1, category: "unknown", status: 404, code: null, kind: null, severity: "warning", retryable: false,
    message: () => "Not Found", action: "Read message; look at the raw sample." }
]
const MODELS = [
  "Qwen/Qwen2.5-7B-Instruct", "Qwen/Qwen2.5-72B-Instruct", "deepseek-ai/DeepSeek-V3", "deepseek-ai/DeepSeek-R1",
  "THUDM/glm-4-9b-chat", "meta-llama/Meta-Llama-3.1-8B-Instruct", "FunAudioLLM/CosyVoice2-0.5B", "BAAI/bge-m3"
]
const SERVICES = ["chat-api", "batch-worker", "tts-gateway", "search"]
const TOTAL_WEIGHT = KINDS.reduce((s, k) => s + k.weight, 0)

/** A small deterministic PRNG (mulberry32). */
const prng = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = seed
  t = Math.imul(t ^ (t >>> 15), t | 1)
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

const fnv = (s: string): string => {
  let h = 0x811c9dc5
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193)
  return (h >>> 0).toString(16).padStart(8, "0") + s.length.toString(16).padStart(8, "0")
}

/**
 * `count` events with occurredAt spread evenly over [start, start + span), ids unique per
 * `prefix`. Skewed: model and service choices are not uniform.
 */
export const makeEvents = (prefix: string, count: number, start: number, span: number, seed = 1): FailureEvent[] => {
  const rnd = prng(seed)
  const out: FailureEvent[] = new Array(count)
  const ingestedAt = new Date(start + span).toISOString()
  for (let i = 0; i < count; i++) {
    let w = rnd() * TOTAL_WEIGHT
    let k = KINDS[0]!
    for (const c of KINDS) {
      w -= c.weight
      if (w <= 0) {
        k = c
        break
      }
    }
    const model = MODELS[Math.floor(rnd() * rnd() * MODELS.length)]!
    const service = SERVICES[Math.floor(rnd() * rnd() * SERVICES.length)]!
    const n = Math.floor(rnd() * 100_000)
    const message = k.message(n, model)
    const ms = start + Math.floor((i / count) * span)
    const requestId = `req_${(n * 7919 + i).toString(36)}`
    const sample =
      `{"level":50,"time":${ms},"service":"${service}","msg":"upstream call failed","status":${k.status},` +
      `"url":"https://api.example.com/v1/chat/completions","model":"${model}","requestId":"${requestId}",` +
      `"authorization":"<redacted>","body":{"code":${JSON.stringify(k.code)},"message":${JSON.stringify(message)},"data":null},` +
      `"latencyMs":${n % 30_000},"attempt":${1 + (n % 3)},"messages":${1 + (n % 12)}}`
    out[i] = {
      id: `${prefix}_${ms.toString(36)}_${i.toString(36)}`,
      occurredAt: new Date(ms).toISOString(),
      ingestedAt,
      source: `file:/var/log/${service}/app.log`,
      line: i + 1,
      service,
      status: k.status,
      code: k.code,
      message,
      model,
      requestId,
      endpoint: "/v1/chat/completions",
      stream: rnd() < 0.3,
      provider: "siliconflow",
      category: k.category,
      rateLimitKind: k.kind,
      severity: k.severity,
      retryable: k.retryable,
      action: k.action,
      fingerprint: fnv(`${k.category}|${k.kind}|${k.status}|${k.code}|${model}|${service}|${message.replace(/\d+/g, "#")}`),
      bodyNotJson: false,
      sample
    }
  }
  return out
}

// ---------------------------------------------------------------------------------------------

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]!
}

const tempDir = (): string => fs.mkdtempSync(path.join(os.tmpdir(), "faultline-bench-store-"))

/** The plain loop: the same rows into the same events table, one INSERT per row, batch = one transaction. */
const baselineCommit = (file: string, events: ReadonlyArray<FailureEvent>, batch: number): number => {
  const db = openDatabase(file, plainLayout())
  const insert = db.prepare(
    `INSERT INTO events (id, occurred_at, ingested_at, source, line, service, status, code, message, model, request_id,
       endpoint, stream, category, rate_limit_kind, severity, retryable, action, fingerprint, body_not_json, sample)
     VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT (id) DO NOTHING`
  )
  const tx = db.transaction((rows: ReadonlyArray<FailureEvent>) => {
    for (const e of rows) {
      insert.run(e.id, Date.parse(e.occurredAt), Date.parse(e.ingestedAt), e.source, e.line, e.service, e.status, e.code,
        e.message, e.model, e.requestId, e.endpoint, e.stream === null ? null : e.stream ? 1 : 0, e.category,
        e.rateLimitKind, e.severity, e.retryable ? 1 : 0, e.action, e.fingerprint, e.bodyNotJson ? 1 : 0, e.sample)
    }
  })
  const t0 = performance.now()
  for (let i = 0; i < events.length; i += batch) tx.immediate(events.slice(i, i + batch))
  const ms = performance.now() - t0
  db.close()
  return (events.length / ms) * 1000
}

const storeCommit = (file: string, events: ReadonlyArray<FailureEvent>, batch: number): number => {
  const db = openDatabase(file)
  const store = new EventStore(db)
  const t0 = performance.now()
  let offset = 0
  for (let i = 0; i < events.length; i += batch) {
    const chunk = events.slice(i, i + batch)
    offset += chunk.length * 400
    const b: IngestBatch = {
      source: "file:/var/log/chat-api/app.log",
      events: chunk,
      linesRead: chunk.length * 20,
      ignored: chunk.length * 19,
      checkpoint: { key: "dev:1:ino:42", path: "/var/log/chat-api/app.log", offset, line: i + chunk.length, size: offset, headHash: "ab", headLength: 64 }
    }
    store.commit([b])
  }
  const ms = performance.now() - t0
  db.close()
  return (events.length / ms) * 1000
}

const timeIt = (runs: number, f: () => unknown): number => {
  const xs: number[] = []
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now()
    f()
    xs.push(performance.now() - t0)
  }
  return median(xs)
}

export async function run(): Promise<Array<BenchResult>> {
  const results: BenchResult[] = []
  const dir = tempDir()
  try {
    // --- 1. commit throughput vs the plain loop
    const commitEvents = Number(process.env.FL_BENCH_COMMIT_EVENTS ?? 200_000)
    const now = Date.now()
    // a live stream: ~2000 failures/s
    const events = makeEvents("evt", commitEvents, now - commitEvents / 2, commitEvents / 2, 7)
    // pairs run back to back (the machine is shared): ratio = median of the pairs' ratios
    const rounds = Number(process.env.FL_BENCH_ROUNDS ?? 5)
    let round = 0
    for (const batch of [1000, 5000]) {
      const ours: number[] = []
      const base: number[] = []
      const ratios: number[] = []
      for (let r = 0; r < rounds; r++) {
        round++
        const b = baselineCommit(path.join(dir, `base-${round}.db`), events, batch)
        const o = storeCommit(path.join(dir, `store-${round}.db`), events, batch)
        base.push(b)
        ours.push(o)
        ratios.push(o / b)
        for (const f of fs.readdirSync(dir)) if (f.includes(`-${round}.db`)) fs.rmSync(path.join(dir, f))
      }
      results.push({
        name: `commit events/s, batches of ${batch}`,
        value: Math.round(median(ours)),
        unit: "events/s",
        baseline: Math.round(median(base)),
        ratio: +median(ratios).toFixed(3)
      })
    }

    // --- 2. report over N events spread over 7 days
    const n = Number(process.env.FL_BENCH_EVENTS ?? 1_000_000)
    const db = openDatabase(path.join(dir, "report.db"))
    const store = new EventStore(db)
    const end = Date.now()
    const start = end - 7 * DAY
    const chunk = 50_000
    const t0 = performance.now()
    for (let i = 0; i < n; i += chunk) {
      const c = Math.min(chunk, n - i)
      const span = (7 * DAY * c) / n
      const evs = makeEvents(`f${i}`, c, start + (7 * DAY * i) / n, span, i + 1)
      store.commit([{ source: "bench", events: evs, linesRead: c, ignored: 0, checkpoint: null }])
    }
    const fillMs = performance.now() - t0
    results.push({ name: `fill ${n} events over 7d through commit (${chunk}/tx)`, value: Math.round((n / fillMs) * 1000), unit: "events/s" })

    const q24 = { since: end - DAY, until: end }
    store.report(q24) // warm
    results.push({ name: `report 24h over ${n} events`, value: +timeIt(15, () => store.report(q24)).toFixed(2), unit: "ms" })
    const odd = { since: end - DAY - 12_345, until: end - 6789 }
    results.push({ name: `report 24h, unaligned edges, over ${n} events`, value: +timeIt(15, () => store.report(odd)).toFixed(2), unit: "ms" })
    const q24s = { ...q24, service: "chat-api", model: "Qwen/Qwen2.5-7B-Instruct" }
    results.push({ name: `report 24h service+model filter over ${n} events`, value: +timeIt(15, () => store.report(q24s)).toFixed(2), unit: "ms" })
    const q1h = { since: end - HOUR - 999, until: end }
    results.push({ name: `report 1h over ${n} events`, value: +timeIt(15, () => store.report(q1h)).toFixed(2), unit: "ms" })
    const q6h = { since: end - 6 * HOUR, until: end }
    results.push({ name: `report 6h (5m steps) over ${n} events`, value: +timeIt(15, () => store.report(q6h)).toFixed(2), unit: "ms" })
    const q7d = { since: start, until: end }
    results.push({ name: `report 7d over ${n} events`, value: +timeIt(9, () => store.report(q7d)).toFixed(2), unit: "ms" })
    results.push({ name: `listEvents limit 100 (newest) over ${n} events`, value: +timeIt(15, () => store.listEvents({ limit: 100 })).toFixed(2), unit: "ms" })
    results.push({ name: `listEvents category=auth_realname limit 100 over ${n} events`, value: +timeIt(15, () => store.listEvents({ category: "auth_realname", limit: 100 })).toFixed(2), unit: "ms" })
    results.push({ name: `listEvents status=404 limit 100 over ${n} events`, value: +timeIt(15, () => store.listEvents({ status: 404, limit: 100 })).toFixed(2), unit: "ms" })
    results.push({ name: `incidents() over ${n} events`, value: +timeIt(15, () => store.incidents({})).toFixed(2), unit: "ms" })
    db.close()
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
  return results
}

/**
 * Executed directly: `node dist/bench/store.js`, `npx vite-node --script bench/store.ts`, or plain
 * `npx vite-node bench/store.ts` (which hides the script path from argv: an aggregator that imports
 * this module under plain vite-node should set FL_BENCH_NO_AUTORUN=1).
 */
const entry = process.argv[1]
const isMain =
  entry !== undefined &&
  (import.meta.url === pathToFileURL(path.resolve(entry)).href ||
    (path.basename(entry) === "vite-node" && process.env.FL_BENCH_NO_AUTORUN === undefined))
if (isMain) {
  run().then(
    (rs) => {
      for (const r of rs) {
        const extra = r.baseline === undefined ? "" : `  (plain loop ${r.baseline} ${r.unit}, ratio ${r.ratio})`
        console.log(`${r.name}: ${r.value} ${r.unit}${extra}`)
      }
    },
    (e: unknown) => {
      console.error(e)
      process.exitCode = 1
    }
  )
}
