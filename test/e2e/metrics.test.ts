/**
 * `GET /metrics` (CONTRACT section 9) end to end: the built CLI runs `serve` in a temp folder on
 * an ephemeral loopback port with `http.apiToken` set; failures arrive through a tailed file and
 * through POST /v1/events; the Prometheus text exposition is parsed and its numbers compared
 * with what was sent.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Daemon, startDaemon, tempDir, waitFor } from "../support/daemon.js"
import { type Receiver, startReceiver } from "../support/receiver.js"

// ---------------------------------------------------------------------------------------------
// a small parser of the Prometheus text format (version 0.0.4)

interface Sample {
  readonly name: string
  readonly labels: Readonly<Record<string, string>>
  readonly value: number
}

interface Exposition {
  readonly types: ReadonlyMap<string, string>
  readonly helps: ReadonlyMap<string, string>
  readonly samples: ReadonlyArray<Sample>
}

const unescapeLabel = (v: string): string => v.replace(/\\(["\\n])/g, (_, c: string) => (c === "n" ? "\n" : c))

/** As Prometheus reads values (Go's ParseFloat: "NaN" and "Inf" in any case; prom-client writes "Nan"). */
const parseValue = (v: string): number => {
  const l = v.toLowerCase()
  if (l === "nan") return NaN
  if (l === "+inf" || l === "inf") return Infinity
  if (l === "-inf") return -Infinity
  return /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(v) ? Number(v) : NaN
}

/** Parses the whole text; throws on any line that is not a comment, blank, or `name{labels} value [timestamp]`. */
const parseExposition = (text: string): Exposition => {
  const types = new Map<string, string>()
  const helps = new Map<string, string>()
  const samples: Sample[] = []
  for (const [i, line] of text.split("\n").entries()) {
    if (line.trim() === "") continue
    const meta = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)$/.exec(line)
    if (meta) {
      if (meta[1] === "TYPE") {
        expect(["counter", "gauge", "histogram", "summary", "untyped"], `line ${i + 1}: ${line}`).toContain(meta[3])
        types.set(meta[2]!, meta[3]!)
      } else helps.set(meta[2]!, meta[3]!)
      continue
    }
    if (line.startsWith("#")) continue
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: (-?\d+))?$/.exec(line)
    if (!m) throw new Error(`line ${i + 1} is not in the Prometheus text format: ${JSON.stringify(line)}`)
    const labels: Record<string, string> = {}
    const body = m[2] ?? ""
    const labelRe = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(,|$)/y
    let at = 0
    while (at < body.length) {
      labelRe.lastIndex = at
      const l = labelRe.exec(body)
      if (!l) throw new Error(`line ${i + 1}: bad labels ${JSON.stringify(body)}`)
      if (l[1]! in labels) throw new Error(`line ${i + 1}: label ${l[1]} twice`)
      labels[l[1]!] = unescapeLabel(l[2]!)
      at = labelRe.lastIndex
    }
    const value = parseValue(m[3]!)
    if (Number.isNaN(value) && m[3]!.toLowerCase() !== "nan") throw new Error(`line ${i + 1}: bad value ${JSON.stringify(m[3])}`)
    samples.push({ name: m[1]!, labels, value })
  }
  return { types, helps, samples }
}

const of = (x: Exposition, name: string, match: Record<string, string> = {}): Sample[] =>
  x.samples.filter((s) => s.name === name && Object.entries(match).every(([k, v]) => s.labels[k] === v))

const sum = (x: Exposition, name: string, match: Record<string, string> = {}): number => of(x, name, match).reduce((a, s) => a + s.value, 0)

/** Sums of `name` by one label, over the samples matching `match`, zeros left out. */
const sumBy = (x: Exposition, name: string, label: string, match: Record<string, string> = {}): Record<string, number> => {
  const out: Record<string, number> = {}
  for (const s of of(x, name, match)) if (s.value !== 0) out[s.labels[label]!] = (out[s.labels[label]!] ?? 0) + s.value
  return out
}

// ---------------------------------------------------------------------------------------------

const TOKEN = "metrics-api-token-51c0"
const now = () => new Date().toISOString()

/** Log lines as an application writes them: failures of known categories, and ordinary lines. */
const failureLines = (): Array<{ line: string; category: string }> => [
  { category: "rate_limit", line: `${now()} ERROR chat.client - HTTP 429 {"code":50603,"message":"Request was rejected due to rate limiting. Details: TPM limit reached.","data":null}` },
  { category: "rate_limit", line: `${now()} ERROR chat.client - HTTP 429 {"code":50603,"message":"Request was rejected due to rate limiting. Details: RPM limit reached.","data":null}` },
  { category: "rate_limit", line: JSON.stringify({ level: 50, time: Date.now(), msg: "upstream call failed", status: 429, body: { code: 50603, message: "Request was rejected due to rate limiting. Details: TPM limit reached.", data: null }, model: "Qwen/Qwen2.5-7B-Instruct" }) },
  { category: "overload", line: JSON.stringify({ level: 50, time: Date.now(), msg: "upstream call failed", status: 503, body: { code: 50508, message: "System is too busy now. Please try again later.", data: null }, model: "deepseek-ai/DeepSeek-V3" }) },
  { category: "overload", line: `${now()} ERROR chat.client - status=503 body={"code":50505,"message":"Model service overloaded. Please try again later.","data":null}` },
  { category: "auth_key", line: `${now()} ERROR chat.client - HTTP 401 {"code":401,"message":"Invalid token","data":null}` },
  { category: "model_not_found", line: `${now()} ERROR chat.client - HTTP 400 {"code":20012,"message":"Model does not exist. Please check it carefully.","data":null}` },
  { category: "quota", line: `${now()} ERROR chat.client - HTTP 402 {"code":30001,"message":"Sorry, your account balance is insufficient","data":null}` }
]
const ordinaryLines = (n: number): string[] => Array.from({ length: n }, (_, i) => `${now()} INFO http - GET /api/items/${i} 200 ${3 + i}ms`)

/** The metrics of CONTRACT section 9 with exactly these label names, and their types. */
const CONTRACT_METRICS: ReadonlyArray<{ name: string; labels: ReadonlyArray<string>; type: string }> = [
  { name: "faultline_failures_total", labels: ["category", "rate_limit_kind", "status", "model", "service", "provider"], type: "counter" },
  { name: "faultline_calls_total", labels: ["model", "service", "provider", "outcome"], type: "counter" },
  { name: "faultline_lines_read_total", labels: ["source"], type: "counter" },
  { name: "faultline_lines_ignored_total", labels: ["source"], type: "counter" },
  { name: "faultline_source_lag_bytes", labels: ["source"], type: "gauge" },
  { name: "faultline_alerts_firing", labels: ["rule"], type: "gauge" },
  { name: "faultline_notifications_total", labels: ["receiver", "outcome"], type: "counter" },
  { name: "faultline_outbox_pending", labels: [], type: "gauge" },
  { name: "faultline_tickets_open", labels: [], type: "gauge" }
]

describe("GET /metrics", () => {
  let d: Daemon
  let receiver: Receiver
  let logFile: string
  const scrape = async (): Promise<Exposition> => {
    // no token: /metrics is open even with http.apiToken set
    const r = await fetch(`${d.url}/metrics`, { signal: AbortSignal.timeout(15_000) })
    const text = await r.text()
    expect(r.status, text.slice(0, 300)).toBe(200)
    return parseExposition(text)
  }
  const post = async (records: unknown): Promise<any> => {
    const r = await d.fetch("/v1/events", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(records) })
    const text = await r.text()
    expect(r.status, text).toBe(202)
    return JSON.parse(text)
  }

  beforeAll(async () => {
    receiver = await startReceiver()
    const dir = tempDir()
    fs.mkdirSync(path.join(dir, "logs"))
    logFile = path.join(dir, "logs/app.log")
    d = await startDaemon({
      dir,
      apiToken: TOKEN,
      config: {
        http: { apiToken: TOKEN },
        tail: [{ path: path.join(dir, "logs/**/*.log"), startAt: "beginning", service: "tail-svc" }],
        receivers: [{ name: "hook", type: "webhook", url: `${receiver.url}/hook` }],
        defaultReceivers: ["hook"],
        tickets: { receivers: ["hook"] }
      }
    })
  })
  afterAll(async () => {
    if (d !== undefined) await d.stop("SIGTERM")
    await receiver?.close()
  })

  it("is open without a token while the API needs one, and speaks the Prometheus text format", async () => {
    expect((await fetch(`${d.url}/v1/report`)).status).toBe(401)
    const r = await fetch(`${d.url}/metrics`)
    expect(r.status).toBe(200)
    expect(r.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/)
    const text = await r.text()
    expect(text.endsWith("\n")).toBe(true)
    const x = parseExposition(text)
    expect(x.samples.length).toBeGreaterThan(20)
    // every sample belongs to a declared family (a counter's samples may carry its own name)
    for (const s of x.samples) {
      const family = [s.name, s.name.replace(/_(bucket|sum|count)$/, "")].find((n) => x.types.has(n))
      expect(family, `${s.name} has a # TYPE line`).toBeDefined()
      expect(x.helps.has(family!), `${family} has a # HELP line`).toBe(true)
      expect(s.name.startsWith("faultline_"), s.name).toBe(true)
    }
    // a wrong token changes nothing either
    expect((await fetch(`${d.url}/metrics`, { headers: { authorization: "Bearer wrong" } })).status).toBe(200)
  })

  it("counts lines read, ignored and failures by category for a tailed file", async () => {
    const failures = failureLines()
    const ordinary = ordinaryLines(13)
    // interleaved, appended in a few writes as an application would
    const lines: string[] = []
    for (let i = 0; i < Math.max(failures.length, ordinary.length); i++) {
      if (ordinary[i] !== undefined) lines.push(ordinary[i]!)
      if (failures[i] !== undefined) lines.push(failures[i]!.line)
    }
    fs.appendFileSync(logFile, lines.slice(0, 7).join("\n") + "\n")
    fs.appendFileSync(logFile, lines.slice(7).join("\n") + "\n")
    const N = failures.length
    const M = ordinary.length
    const source = `file:${logFile}`

    const x = await waitFor(`lines_read_total{source="${source}"} to reach ${N + M}`, async () => {
      const x = await scrape()
      return sum(x, "faultline_lines_read_total", { source }) === N + M && sum(x, "faultline_failures_total", { service: "tail-svc" }) === N ? x : undefined
    }, 30_000)
    expect(sum(x, "faultline_lines_ignored_total", { source })).toBe(M)
    const expected: Record<string, number> = {}
    for (const f of failures) expected[f.category] = (expected[f.category] ?? 0) + 1
    expect(sumBy(x, "faultline_failures_total", "category", { service: "tail-svc" })).toEqual(expected)
    expect(sumBy(x, "faultline_failures_total", "rate_limit_kind", { service: "tail-svc", category: "rate_limit" })).toEqual({ TPM: 2, RPM: 1 })
    expect(sumBy(x, "faultline_failures_total", "status", { service: "tail-svc" })).toEqual({ "429": 3, "503": 2, "401": 1, "400": 1, "402": 1 })
    // the file is read to its end
    expect(of(x, "faultline_source_lag_bytes", { source }).map((s) => s.value)).toEqual([0])
    // and the report agrees with the metrics
    const report = await d.json("/v1/report?since=1h&service=tail-svc")
    expect(report.total).toBe(N)
    // the 401 fired api-key-invalid
    expect(of(x, "faultline_alerts_firing", { rule: "api-key-invalid" }).map((s) => s.value)).toEqual([1])
  })

  it("counts webhook records under source=\"webhook\", a ticket opened by a 500 and the firing server-errors alert", async () => {
    const before = await scrape()
    const read0 = sum(before, "faultline_lines_read_total", { source: "webhook" })
    const ignored0 = sum(before, "faultline_lines_ignored_total", { source: "webhook" })
    const body = (code: number, message: string) => ({ code, message, data: null })
    const res = await post([
      { status: 500, model: "deepseek-ai/DeepSeek-V3", service: "hook-svc", body: body(50500, "The server had an error while processing your request.") },
      { status: 429, model: "Qwen/Qwen2.5-7B-Instruct", service: "hook-svc", body: body(50603, "Request was rejected due to rate limiting. Details: TPD limit reached.") },
      { status: 503, model: "Qwen/Qwen2.5-7B-Instruct", service: "hook-svc", body: body(50508, "System is too busy now. Please try again later.") },
      { raw: `${now()} INFO http - GET /healthz 200 1ms`, service: "hook-svc" },
      { log: `${now()} DEBUG cache - hit ratio 0.93`, service: "hook-svc" }
    ])
    expect(res).toMatchObject({ accepted: 3, ignored: 2, rejected: [] })

    const x = await waitFor("the webhook records, the ticket and the alert in /metrics", async () => {
      const x = await scrape()
      return sum(x, "faultline_lines_read_total", { source: "webhook" }) - read0 === 5 && sum(x, "faultline_tickets_open") === 1 ? x : undefined
    }, 30_000)
    expect(sum(x, "faultline_lines_ignored_total", { source: "webhook" }) - ignored0).toBe(2)
    expect(sumBy(x, "faultline_failures_total", "category", { service: "hook-svc" })).toEqual({ server_error: 1, rate_limit: 1, overload: 1 })
    expect(of(x, "faultline_tickets_open").map((s) => s.value)).toEqual([1])
    expect(of(x, "faultline_alerts_firing", { rule: "server-errors" }).map((s) => s.value)).toEqual([1])
    expect(of(x, "faultline_alerts_firing", { rule: "daily-limit-reached" }).map((s) => s.value)).toEqual([1])
    // every built-in rule is exposed, firing or not
    expect(of(x, "faultline_alerts_firing").map((s) => s.labels.rule).sort()).toEqual(
      ["api-key-invalid", "daily-limit-reached", "model-not-found", "overloaded", "permission-denied", "quota-exhausted", "rate-limited", "realname-auth-required", "server-errors"]
    )
    expect(of(x, "faultline_alerts_firing", { rule: "overloaded" }).map((s) => s.value)).toEqual([0])

    // the notifications (alerts and the ticket) reach the receiver; the outbox empties
    const delivered = await waitFor("every notification delivered", async () => {
      const x = await scrape()
      const pending = sum(x, "faultline_outbox_pending")
      const n = sum(x, "faultline_notifications_total", { receiver: "hook", outcome: "delivered" })
      return pending === 0 && n >= 1 && n === receiver.received.length ? x : undefined
    }, 30_000)
    expect(sum(delivered, "faultline_notifications_total", { receiver: "hook", outcome: "dead" })).toBe(0)
    expect(receiver.received.some((r) => r.json().kind === "ticket" && r.json().status === "open")).toBe(true)
  })

  it("has every metric of CONTRACT section 9 with exactly its label names, and process metrics", async () => {
    // make sure each family has a sample: a tailed file, and a notification (permission-denied fires)
    fs.appendFileSync(logFile, `${now()} INFO http - GET /api/ping 200 1ms\n`)
    await post({ status: 403, code: 30001, message: "You do not have permission to access this model", model: "perm/model", service: "perm-svc" })
    const x = await waitFor("a sample of every metric", async () => {
      const x = await scrape()
      return CONTRACT_METRICS.every((m) => of(x, m.name).length > 0) ? x : undefined
    }, 30_000)
    for (const m of CONTRACT_METRICS) {
      expect(x.types.get(m.name), m.name).toBe(m.type)
      for (const s of of(x, m.name)) expect(Object.keys(s.labels).sort(), `${m.name} ${JSON.stringify(s.labels)}`).toEqual([...m.labels].sort())
    }
    // collectDefaultMetrics({ prefix: "faultline_" })
    for (const [name, type] of [
      ["faultline_process_resident_memory_bytes", "gauge"],
      ["faultline_process_cpu_seconds_total", "counter"],
      ["faultline_process_start_time_seconds", "gauge"],
      ["faultline_nodejs_heap_size_used_bytes", "gauge"],
      ["faultline_nodejs_eventloop_lag_seconds", "gauge"]
    ] as const) {
      expect(x.types.get(name), name).toBe(type)
      expect(of(x, name), name).toHaveLength(1)
    }
    expect(of(x, "faultline_process_resident_memory_bytes")[0]!.value).toBeGreaterThan(10 * 1024 * 1024)
    expect(of(x, "faultline_process_cpu_seconds_total")[0]!.value).toBeGreaterThan(0)
    const started = of(x, "faultline_process_start_time_seconds")[0]!.value
    expect(Math.abs(started - Date.now() / 1000)).toBeLessThan(3600)
    expect(of(x, "faultline_nodejs_heap_size_used_bytes")[0]!.value).toBeGreaterThan(0)
  })

  it("bounds the model label: 80 distinct models give at most 50 names plus `other`, and the counts still add up", async () => {
    const records = Array.from({ length: 80 }, (_, i) => ({
      status: 503,
      model: `card-org/model-${String(i).padStart(2, "0")}`,
      service: "card-svc",
      body: { code: 50508, message: "System is too busy now. Please try again later.", data: null }
    }))
    expect(await post(records)).toMatchObject({ accepted: 80, rejected: [] })
    const x = await waitFor("80 failures of card-svc", async () => {
      const x = await scrape()
      return sum(x, "faultline_failures_total", { service: "card-svc" }) === 80 ? x : undefined
    }, 30_000)
    // `none` stands for "no model" (records without one) and is not a model name
    const models = new Set(of(x, "faultline_failures_total").map((s) => s.labels.model).filter((m) => m !== "none"))
    expect(models.size).toBeLessThanOrEqual(51)
    expect(models.has("other")).toBe(true)
    const cardModels = new Set(of(x, "faultline_failures_total", { service: "card-svc" }).map((s) => s.labels.model))
    expect(cardModels.size).toBeLessThanOrEqual(51)
    expect(sum(x, "faultline_failures_total", { service: "card-svc", category: "overload" })).toBe(80)
    // every failure stored is counted once, whatever its label
    const report = await d.json("/v1/report?since=1h")
    expect(sum(x, "faultline_failures_total")).toBe(report.total)
    // the events keep their real model names; only the metric folds them
    const events = await d.json("/v1/events?service=card-svc&limit=100")
    expect(new Set(events.events.map((e: { model: string }) => e.model)).size).toBe(80)
  })
})
