/**
 * POST /v1/events end to end (CONTRACT sections 5, 6): the built CLI runs `serve` in a temp
 * folder on an ephemeral loopback port and is driven over real HTTP, the way Vector, Fluent Bit
 * and application code send failed calls to it.
 */
import * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Daemon, repoRoot, startDaemon } from "../support/daemon.js"
import { answer, type Answer, rawExchange } from "../support/http.js"

// ---------------------------------------------------------------------------------------------
// local helpers


/** POST /v1/events with a JSON (or NDJSON, or raw) body; `contentType: null` sends none. */
const post = async (
  d: Daemon,
  body: unknown,
  opts: { contentType?: string | null; token?: string; headers?: Record<string, string> } = {}
): Promise<Answer> => {
  const headers = new Headers(opts.headers)
  const contentType = opts.contentType === undefined ? "application/json" : opts.contentType
  if (contentType !== null) headers.set("content-type", contentType)
  // a Uint8Array body makes fetch add no content type of its own
  const payload = typeof body === "string" ? Buffer.from(body) : body instanceof Uint8Array ? body : Buffer.from(JSON.stringify(body))
  return answer(await d.fetch("/v1/events", { method: "POST", body: payload, headers, ...(opts.token ? { token: opts.token } : {}) }))
}

const ndjson = (items: ReadonlyArray<unknown>): string => items.map((i) => (typeof i === "string" ? i : JSON.stringify(i))).join("\n") + "\n"

/** Every stored event (newest first), walking the pages. */
const allEvents = async (d: Daemon, token?: string): Promise<any[]> => {
  const out: any[] = []
  let cursor: string | null = null
  for (;;) {
    const q: string = `/v1/events?since=30d&limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`
    const page = await d.json<{ events: any[]; nextCursor: string | null }>(q, token ? { token } : {})
    out.push(...page.events)
    if (page.nextCursor === null) return out
    cursor = page.nextCursor
  }
}

const eventById = async (d: Daemon, id: string): Promise<any> => {
  const found = (await allEvents(d)).filter((e) => e.id === id)
  expect(found, `events with id ${id}`).toHaveLength(1)
  return found[0]
}

/** The events stored since `before` (a set of ids taken earlier), newest first. */
const eventsAfter = async (d: Daemon, before: ReadonlySet<string>): Promise<any[]> => (await allEvents(d)).filter((e) => !before.has(e.id))
const idsOf = async (d: Daemon): Promise<Set<string>> => new Set((await allEvents(d)).map((e) => e.id))

/**
 * One POST /v1/events written whole on a raw socket (`headers` are extra header lines); resolves
 * with the status and body of the answer, even if the daemon resets the connection after it.
 */
const rawHttp = (port: number, headers: ReadonlyArray<string>, body: Buffer): Promise<{ status: number; body: string }> => {
  const head = [`POST /v1/events HTTP/1.1`, `Host: 127.0.0.1:${port}`, "Content-Type: application/json", ...headers, "", ""].join("\r\n")
  return rawExchange(port, Buffer.concat([Buffer.from(head), body]))
}

/** Resolves once the daemon's stdout and stderr pipes have ended (after it exited). */
const drained = (d: Daemon): Promise<unknown> =>
  Promise.all(
    [d.proc.stdout, d.proc.stderr].map((s) => (s === null || s.readableEnded || s.destroyed ? null : new Promise((r) => s.once("close", r))))
  )

const healthy = async (d: Daemon): Promise<void> => {
  const h = await d.fetch("/healthz")
  expect(h.status).toBe(200)
  await h.body?.cancel()
}

/** The real-world corpus: `{"id","raw","category":[...],"rateLimitKind":[...]}` per line. */
interface Sample {
  readonly id: string
  readonly raw: string
  readonly category: ReadonlyArray<string>
  readonly rateLimitKind: ReadonlyArray<string | null>
}
const corpus: ReadonlyMap<string, Sample> = new Map(
  fs
    .readFileSync(path.join(repoRoot, "fixtures/corpus/public.jsonl"), "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Sample)
    .map((s) => [s.id, s] as const)
)
const sample = (id: string): Sample => {
  const s = corpus.get(id)
  if (s === undefined) throw new Error(`corpus sample ${id} is missing`)
  return s
}

/** Ordinary lines an application logs between failures (fixtures/webhook/ordinary-lines.txt). */
const ordinaryLines: ReadonlyArray<string> = fs
  .readFileSync(path.join(repoRoot, "fixtures/webhook/ordinary-lines.txt"), "utf8")
  .split("\n")
  .filter((l) => l.trim() !== "")

const EVENT_KEYS = [
  "id", "occurredAt", "ingestedAt", "source", "line", "service", "status", "code", "message", "model", "requestId",
  "endpoint", "stream", "category", "rateLimitKind", "severity", "retryable", "action", "fingerprint", "bodyNotJson", "sample"
]

const TPM_BODY = { code: 50603, message: "Request was rejected due to rate limiting. Details: TPM limit reached.", data: null }

let seq = 0
/** A unique id per test run, so nothing collides with another test's records. */
const uid = (prefix: string) => `${prefix}-${process.pid}-${Date.now().toString(36)}-${++seq}`

// ---------------------------------------------------------------------------------------------

describe("POST /v1/events: structured records, arrays, NDJSON, idempotency", () => {
  let d: Daemon
  beforeAll(async () => {
    d = await startDaemon()
  })
  afterAll(async () => {
    if (d !== undefined) expect((await d.stop("SIGTERM")).code).toBe(0)
  })

  it("accepts one structured object (202) and serves it from GET /v1/events, classified", async () => {
    const id = uid("one")
    const t0 = Date.now()
    const res = await post(d, { status: 429, body: TPM_BODY, model: "Qwen/Qwen2.5-7B-Instruct", service: "chat-api", requestId: "req-7f3a9c", id })
    const t1 = Date.now()
    expect(res.status).toBe(202)
    expect(res.headers.get("content-type")).toMatch(/^application\/json/)
    expect(res.body).toEqual({ accepted: 1, duplicates: 0, counted: 0, ignored: 0, rejected: [], rejectedCount: 0 })

    const e = await eventById(d, id)
    expect(Object.keys(e)).toEqual(expect.arrayContaining(EVENT_KEYS))
    expect(e).toMatchObject({
      id,
      source: "webhook",
      line: null,
      service: "chat-api",
      status: 429,
      code: 50603,
      message: TPM_BODY.message,
      model: "Qwen/Qwen2.5-7B-Instruct",
      requestId: "req-7f3a9c",
      category: "rate_limit",
      rateLimitKind: "TPM",
      severity: "warning",
      retryable: true,
      bodyNotJson: false
    })
    expect(e.fingerprint).toMatch(/^[0-9a-f]{8,}$/)
    expect(e.action).toMatch(/\S/)
    // no occurredAt given: the time it arrived
    expect(Date.parse(e.occurredAt)).toBeGreaterThanOrEqual(t0 - 1000)
    expect(Date.parse(e.occurredAt)).toBeLessThanOrEqual(t1 + 1000)
  })

  it("serves POST /v1/events with a query string; other methods and paths near it are the router's", async () => {
    // POST /v1/events is a plain node:http handler ahead of the Effect router: its edges
    const id = uid("query")
    const res = await answer(
      await d.fetch("/v1/events?source=gateway", {
        method: "POST",
        body: JSON.stringify({ status: 503, body: { code: 50508, message: "System is too busy now. Please try again later.", data: null }, id }),
        headers: { "content-type": "application/json" }
      })
    )
    expect(res.status).toBe(202)
    expect((await eventById(d, id)).category).toBe("overload")
    const list = await d.fetch("/v1/events?limit=1")
    expect(list.status).toBe(200)
    expect(((await list.json()) as { events: unknown[] }).events).toHaveLength(1)
    for (const [method, url] of [["POST", "/v1/events/"], ["PUT", "/v1/events"], ["POST", "/v1/eventsx"]] as const) {
      const other = await answer(await d.fetch(url, { method, body: "{}", headers: { "content-type": "application/json" } }))
      expect(other.status, `${method} ${url}`).toBe(404)
      expect(other.body).toEqual({ error: { code: "not_found", message: expect.any(String) } })
    }
  })

  it("counts a structured record with a status below 400 as a successful call, stores nothing of it, whatever its body", async () => {
    const id = uid("ok")
    const res = await post(d, [
      { id, status: 200, model: "Qwen/Qwen2.5-7B-Instruct", service: "calls" },
      { status: 200, body: { code: 336501, message: "Rate limit reached for RPM" }, service: "calls" },
      { status: 500, body: { code: 50500, message: "Internal server error", data: null }, service: "calls" },
      { raw: `${new Date().toISOString()} INFO http - GET /healthz 200 1ms` }
    ])
    expect(res.status).toBe(202)
    expect(res.body).toEqual({ accepted: 1, duplicates: 0, counted: 2, ignored: 1, rejected: [], rejectedCount: 0 })
    expect((await allEvents(d)).some((e) => e.id === id)).toBe(false)
  })

  it("accepts a JSON array of several records, each classified on its own", async () => {
    const ids = [uid("arr"), uid("arr"), uid("arr"), uid("arr")]
    const occurredAt = new Date(Date.now() - 3_600_000).toISOString()
    const res = await post(d, [
      { id: ids[0], status: 500, body: { code: 50500, message: "Internal server error", data: null }, model: "deepseek-ai/DeepSeek-V3", service: "batch" },
      { id: ids[1], status: 401, body: { code: 401, message: "Invalid token", data: null }, service: "batch", occurredAt },
      { id: ids[2], status: 503, body: { code: 50508, message: "System is too busy now. Please try again later.", data: null }, model: "Qwen/QwQ-32B", stream: false },
      { id: ids[3], status: 400, code: 20012, message: "Model does not exist. Please check it carefully.", model: "Kwai-Kolors/Kolors", endpoint: "/v1/images/generations" }
    ])
    expect(res.status).toBe(202)
    expect(res.body).toEqual({ accepted: 4, duplicates: 0, counted: 0, ignored: 0, rejected: [], rejectedCount: 0 })

    const byId = new Map((await allEvents(d)).map((e) => [e.id, e]))
    expect(byId.get(ids[0])).toMatchObject({ category: "server_error", rateLimitKind: null, severity: "critical", model: "deepseek-ai/DeepSeek-V3", service: "batch", status: 500 })
    expect(byId.get(ids[1])).toMatchObject({ category: "auth_key", rateLimitKind: null, severity: "critical", retryable: false, status: 401, occurredAt })
    expect(byId.get(ids[2])).toMatchObject({ category: "overload", rateLimitKind: null, retryable: true, model: "Qwen/QwQ-32B", stream: false, status: 503, code: 50508 })
    expect(byId.get(ids[3])).toMatchObject({ category: "model_not_found", code: 20012, model: "Kwai-Kolors/Kolors", endpoint: "/v1/images/generations" })
  })

  it("accepts NDJSON; a broken line is rejected by its index and the others are stored", async () => {
    const ids = [uid("nd"), uid("nd"), uid("nd")]
    const body = ndjson([
      { id: ids[0], status: 429, body: TPM_BODY, model: "Qwen/Qwen2.5-7B-Instruct" },
      '{"id": "half a record", "status": 429,',
      { id: ids[1], status: 503, message: "System is too busy now. Please try again later.", model: "Qwen/QwQ-32B" },
      { id: ids[2], status: 402, body: { code: 30001, message: "Sorry, your account balance is insufficient", data: null } }
    ])
    const res = await post(d, body, { contentType: "application/x-ndjson" })
    expect(res.status).toBe(202)
    expect(res.body).toMatchObject({ accepted: 3, duplicates: 0, counted: 0, ignored: 0 })
    expect(res.body.rejected).toEqual([{ index: 1, error: expect.stringMatching(/JSON/) }])

    const byId = new Map((await allEvents(d)).map((e) => [e.id, e]))
    expect(ids.map((i) => byId.get(i)?.category)).toEqual(["rate_limit", "overload", "quota"])
    expect(byId.has("half a record")).toBe(false)
  })

  it("accepts a JSON array with one wrongly typed record: 202, that record rejected with its reason", async () => {
    const good = uid("mix")
    const res = await post(d, [{ id: good, status: 500, message: "Internal server error" }, { id: uid("mix"), status: "five hundred" }])
    expect(res.status).toBe(202)
    expect(res.body).toMatchObject({ accepted: 1, duplicates: 0 })
    expect(res.body.rejected).toEqual([{ index: 1, error: expect.stringMatching(/status/) }])
    expect((await eventById(d, good)).category).toBe("server_error")
  })

  it("stores a record once when its id comes twice in one request, and again in a later request", async () => {
    const id = uid("dup")
    const rec = { id, status: 429, body: TPM_BODY, model: "Qwen/Qwen2.5-7B-Instruct", service: "chat-api" }
    const first = await post(d, [rec, { ...rec, requestId: "another-request" }])
    expect(first.status).toBe(202)
    expect(first.body).toEqual({ accepted: 1, duplicates: 1, counted: 0, ignored: 0, rejected: [], rejectedCount: 0 })

    const again = await post(d, rec)
    expect(again.status).toBe(202)
    expect(again.body).toEqual({ accepted: 0, duplicates: 1, counted: 0, ignored: 0, rejected: [], rejectedCount: 0 })

    const asNdjson = await post(d, ndjson([rec, { ...rec, id: `${id}-other` }]), { contentType: "application/x-ndjson" })
    expect(asNdjson.body).toEqual({ accepted: 1, duplicates: 1, counted: 0, ignored: 0, rejected: [], rejectedCount: 0 })

    expect((await allEvents(d)).filter((e) => e.id === id)).toHaveLength(1)
    expect((await allEvents(d)).filter((e) => e.id === `${id}-other`)).toHaveLength(1)
  })
})

// ---------------------------------------------------------------------------------------------

describe("POST /v1/events: what Vector's http sink and Fluent Bit's http output send", () => {
  let d: Daemon
  beforeAll(async () => {
    d = await startDaemon()
  })
  afterAll(async () => {
    if (d !== undefined) expect((await d.stop("SIGTERM")).code).toBe(0)
  })

  // corpus lines without a timestamp of their own: occurredAt must come from the shipper
  const failing = ["s026", "s031", "s009", "s136", "s063"].map(sample)

  /** Vector writes RFC 3339 with microseconds; the stored occurredAt is that instant in ms. */
  const vectorTime = (agoMs: number): { shipped: string; expected: string } => {
    const iso = new Date(Math.floor((Date.now() - agoMs) / 1000) * 1000 + 123).toISOString()
    return { shipped: iso.replace(/Z$/, "456Z"), expected: iso }
  }
  const vectorRecord = (line: string, timestamp: string) => ({
    file: "/var/log/app.log",
    host: "web-1",
    message: line,
    source_type: "file",
    timestamp
  })

  const expectClassified = (events: any[], sent: ReadonlyArray<{ sample: Sample; occurredAt: string }>) => {
    expect(events).toHaveLength(sent.length)
    for (const s of sent) {
      const e = events.find((x) => x.occurredAt === s.occurredAt)
      expect(e, `event of ${s.sample.id} at ${s.occurredAt}`).toBeDefined()
      expect(s.sample.category).toContain(e.category)
      expect(s.sample.rateLimitKind).toContain(e.rateLimitKind)
      expect(e.source).toBe("webhook")
    }
  }

  it("reads a Vector JSON array: failures stored with the shipper's timestamp, ordinary lines ignored", async () => {
    const before = await idsOf(d)
    const sent = failing.map((s, i) => ({ sample: s, ...vectorTime(3_600_000 + i * 60_000) }))
    const body = [
      vectorRecord(ordinaryLines[0]!, vectorTime(3_500_000).shipped),
      ...sent.map((s) => vectorRecord(s.sample.raw, s.shipped)),
      vectorRecord(ordinaryLines[1]!, vectorTime(3_400_000).shipped),
      vectorRecord(ordinaryLines[2]!, vectorTime(3_300_000).shipped)
    ]
    const res = await post(d, body)
    expect(res.status).toBe(202)
    // the first ordinary line is httpx's record of a successful chat completion: a call, counted
    expect(res.body).toEqual({ accepted: sent.length, duplicates: 0, counted: 1, ignored: 2, rejected: [], rejectedCount: 0 })
    expectClassified(await eventsAfter(d, before), sent.map((s) => ({ sample: s.sample, occurredAt: s.expected })))
  })

  it("reads Vector NDJSON (newline_delimited framing) the same way", async () => {
    const before = await idsOf(d)
    const sent = failing.slice(0, 3).map((s, i) => ({ sample: s, ...vectorTime(7_200_000 + i * 60_000) }))
    const body = ndjson([
      ...sent.map((s) => vectorRecord(s.sample.raw, s.shipped)),
      vectorRecord(ordinaryLines[3]!, vectorTime(7_000_000).shipped)
    ])
    const res = await post(d, body, { contentType: "application/x-ndjson" })
    expect(res.status).toBe(202)
    expect(res.body).toEqual({ accepted: 3, duplicates: 0, counted: 0, ignored: 1, rejected: [], rejectedCount: 0 })
    expectClassified(await eventsAfter(d, before), sent.map((s) => ({ sample: s.sample, occurredAt: s.expected })))
  })

  /** Fluent Bit's `json_date_format double`: epoch seconds with a fraction. */
  const fluentDate = (agoMs: number): { date: number; expected: string } => {
    const date = Math.round((Date.now() - agoMs) / 10) / 100
    return { date, expected: new Date(date * 1000).toISOString() }
  }

  it("reads Fluent Bit `format json` ([{date, log}]): failures timed by `date`, ordinary lines ignored", async () => {
    const before = await idsOf(d)
    const sent = failing.map((s, i) => ({ sample: s, ...fluentDate(10_800_000 + i * 60_000) }))
    const body = [
      ...sent.map((s) => ({ date: s.date, log: s.sample.raw })),
      { date: fluentDate(10_000_000).date, log: ordinaryLines[4]! },
      { date: fluentDate(10_000_000).date, log: ordinaryLines[5]! }
    ]
    const res = await post(d, body)
    expect(res.status).toBe(202)
    expect(res.body).toEqual({ accepted: sent.length, duplicates: 0, counted: 0, ignored: 2, rejected: [], rejectedCount: 0 })
    expectClassified(await eventsAfter(d, before), sent.map((s) => ({ sample: s.sample, occurredAt: s.expected })))
  })

  it("reads Fluent Bit `format json_lines` the same way", async () => {
    const before = await idsOf(d)
    const sent = failing.slice(2).map((s, i) => ({ sample: s, ...fluentDate(14_400_000 + i * 60_000) }))
    const body = ndjson([
      { date: fluentDate(14_000_000).date, log: ordinaryLines[6]! },
      ...sent.map((s) => ({ date: s.date, log: s.sample.raw }))
    ])
    const res = await post(d, body, { contentType: "application/x-ndjson" })
    expect(res.status).toBe(202)
    expect(res.body).toEqual({ accepted: sent.length, duplicates: 0, counted: 0, ignored: 1, rejected: [], rejectedCount: 0 })
    expectClassified(await eventsAfter(d, before), sent.map((s) => ({ sample: s.sample, occurredAt: s.expected })))
  })

  it("counts a body of only ordinary lines as read and ignored (the successful call among them counted), storing nothing", async () => {
    const before = await idsOf(d)
    const res = await post(d, ordinaryLines.map((l) => vectorRecord(l, vectorTime(60_000).shipped)))
    expect(res.status).toBe(202)
    expect(res.body).toEqual({ accepted: 0, duplicates: 0, counted: 1, ignored: ordinaryLines.length - 1, rejected: [], rejectedCount: 0 })
    expect(await eventsAfter(d, before)).toEqual([])
  })
})

// ---------------------------------------------------------------------------------------------

describe("POST /v1/events: bad bodies are refused precisely and the daemon keeps working", () => {
  let d: Daemon
  beforeAll(async () => {
    d = await startDaemon()
  })
  afterAll(async () => {
    if (d !== undefined) expect((await d.stop("SIGTERM")).code).toBe(0)
  })

  /** After every refusal a good request is still accepted and /healthz answers. */
  const stillWorks = async () => {
    const id = uid("after")
    const ok = await post(d, { id, status: 500, message: "Internal server error" })
    expect(ok.status).toBe(202)
    expect(ok.body).toEqual({ accepted: 1, duplicates: 0, counted: 0, ignored: 0, rejected: [], rejectedCount: 0 })
    await healthy(d)
  }

  it("answers 400 bad_json to a body that is not JSON", async () => {
    for (const text of ['{"status": 429, "message": "Rate limit', "[1, 2,", "status=429"]) {
      const res = await post(d, text)
      expect(res.status).toBe(400)
      expect(res.body).toEqual({ error: { code: "bad_json", message: expect.stringMatching(/JSON/) } })
    }
    await stillWorks()
  })

  it("answers 400 with every record's reason when no record has the right types", async () => {
    const before = await idsOf(d)
    const res = await post(d, [{ status: "abc", message: "x" }, 42, { model: 7 }])
    expect(res.status).toBe(400)
    expect(res.body.error.code).toMatch(/^bad_/)
    expect(res.body.error.message).toMatch(/status/)
    expect(res.body.rejected).toEqual([
      { index: 0, error: expect.stringMatching(/status/) },
      { index: 1, error: expect.stringMatching(/object/) },
      { index: 2, error: expect.stringMatching(/model/) }
    ])

    const single = await post(d, { status: "abc" })
    expect(single.status).toBe(400)
    expect(single.body.rejected).toEqual([{ index: 0, error: expect.stringMatching(/status/) }])

    const scalar = await post(d, "42")
    expect(scalar.status).toBe(400)
    expect(scalar.body.rejected).toEqual([{ index: 0, error: expect.stringMatching(/object/) }])

    expect(await eventsAfter(d, before)).toEqual([])
    await stillWorks()
  })

  it("answers 415 to text/plain and to a body without a content type", async () => {
    const body = JSON.stringify({ status: 500, message: "Internal server error" })
    for (const contentType of ["text/plain", "text/plain; charset=utf-8", null]) {
      const res = await post(d, body, { contentType })
      expect(res.status).toBe(415)
      expect(res.body).toEqual({ error: { code: "unsupported_media_type", message: expect.any(String) } })
    }
    await stillWorks()
  })
})

describe("POST /v1/events: bodies over http.maxBodyBytes", () => {
  const max = 2048
  let d: Daemon
  beforeAll(async () => {
    d = await startDaemon({ config: { http: { maxBodyBytes: max } } })
  })
  afterAll(async () => {
    if (d !== undefined) expect((await d.stop("SIGTERM")).code).toBe(0)
  })

  const bigBody = (): string => {
    const recs: unknown[] = []
    while (JSON.stringify(recs).length <= max + 512) recs.push({ id: uid("big"), status: 500, message: "Internal server error" })
    return JSON.stringify(recs)
  }

  // The daemon answers 413 as soon as the limit is passed and closes the connection, possibly
  // before a streaming client has finished writing (fetch then fails with EPIPE instead of giving
  // the answer). So these requests are written whole on a raw socket and the answer read from it.
  it("answers 413 to a body over the limit (declared length), stores none of it, keeps working", async () => {
    const before = await idsOf(d)
    const body = Buffer.from(bigBody())
    expect(body.length).toBeGreaterThan(max)
    const res = await rawHttp(d.port, [`Content-Length: ${body.length}`], body)
    expect(res.status).toBe(413)
    expect(JSON.parse(res.body)).toEqual({ error: { code: "payload_too_large", message: expect.stringMatching(/maxBodyBytes/) } })
    expect(await eventsAfter(d, before)).toEqual([])

    const ok = await post(d, { id: uid("small"), status: 500, message: "Internal server error" })
    expect(ok.status).toBe(202)
    expect(ok.body.accepted).toBe(1)
    await healthy(d)
  })

  it("answers 413 to a chunked body (no declared length) that grows over the limit", async () => {
    const before = await idsOf(d)
    const bytes = Buffer.from(bigBody())
    const parts: Buffer[] = []
    for (let i = 0; i < bytes.length; i += 700) {
      const chunk = bytes.subarray(i, i + 700)
      parts.push(Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from("\r\n"))
    }
    parts.push(Buffer.from("0\r\n\r\n"))
    const res = await rawHttp(d.port, ["Transfer-Encoding: chunked"], Buffer.concat(parts))
    expect(res.status).toBe(413)
    expect(JSON.parse(res.body).error.code).toBe("payload_too_large")
    expect(await eventsAfter(d, before)).toEqual([])

    const ok = await post(d, { id: uid("small"), status: 500, message: "Internal server error" })
    expect(ok.status).toBe(202)
    await healthy(d)
  })

  it("reads a chunked body under the limit like any other", async () => {
    const id = uid("chunked")
    const body = Buffer.from(JSON.stringify({ id, status: 503, message: "System is too busy now. Please try again later." }))
    const framed = Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from("\r\n0\r\n\r\n")])
    const res = await rawHttp(d.port, ["Transfer-Encoding: chunked"], framed)
    expect(res.status).toBe(202)
    expect(JSON.parse(res.body)).toEqual({ accepted: 1, duplicates: 0, counted: 0, ignored: 0, rejected: [], rejectedCount: 0 })
    expect((await eventById(d, id)).category).toBe("overload")
  })

  it("accepts a body just under the limit", async () => {
    const recs: unknown[] = []
    for (;;) {
      const next = [...recs, { id: uid("fit"), status: 503, message: "System is too busy now. Please try again later." }]
      if (JSON.stringify(next).length > max) break
      recs.push(next[next.length - 1])
    }
    const res = await post(d, recs)
    expect(res.status).toBe(202)
    expect(res.body).toEqual({ accepted: recs.length, duplicates: 0, counted: 0, ignored: 0, rejected: [], rejectedCount: 0 })
  })
})

// ---------------------------------------------------------------------------------------------

describe("POST /v1/events with http.ingestToken and http.apiToken", () => {
  const apiToken = "api-2d8f6c0e4b1a9f37"
  const ingestToken = "ingest-7c1e9a3b5d2f8e40"
  let d: Daemon
  beforeAll(async () => {
    d = await startDaemon({ config: { http: { apiToken, ingestToken } } })
  })
  afterAll(async () => {
    if (d !== undefined) expect((await d.stop("SIGTERM")).code).toBe(0)
  })

  const rec = () => ({ id: uid("tok"), status: 429, body: TPM_BODY, model: "Qwen/Qwen2.5-7B-Instruct" })

  it("refuses a POST without a token or with a wrong one (401) and stores nothing", async () => {
    const before = new Set((await allEvents(d, apiToken)).map((e) => e.id))
    const none = await post(d, rec())
    expect(none.status).toBe(401)
    expect(none.body).toEqual({ error: { code: "unauthorized", message: expect.any(String) } })
    const wrong = await post(d, rec(), { token: "ingest-7c1e9a3b5d2f8e41" })
    expect(wrong.status).toBe(401)
    expect(wrong.body.error.code).toBe("unauthorized")
    const basic = await post(d, rec(), { headers: { authorization: `Basic ${Buffer.from(`x:${ingestToken}`).toString("base64")}` } })
    expect(basic.status).toBe(401)
    expect((await allEvents(d, apiToken)).filter((e) => !before.has(e.id))).toEqual([])
  })

  it("accepts the ingest token and the api token (202)", async () => {
    const a = rec()
    const b = rec()
    const viaIngest = await post(d, a, { token: ingestToken })
    expect(viaIngest.status).toBe(202)
    expect(viaIngest.body).toEqual({ accepted: 1, duplicates: 0, counted: 0, ignored: 0, rejected: [], rejectedCount: 0 })
    const viaApi = await post(d, b, { token: apiToken })
    expect(viaApi.status).toBe(202)
    expect(viaApi.body).toEqual({ accepted: 1, duplicates: 0, counted: 0, ignored: 0, rejected: [], rejectedCount: 0 })
    const ids = (await allEvents(d, apiToken)).map((e) => e.id)
    expect(ids).toContain(a.id)
    expect(ids).toContain(b.id)
  })

  it("does not let the ingest token read: GET /v1/events with it is 401, with the api token 200", async () => {
    const r = await answer(await d.fetch("/v1/events", { token: ingestToken }))
    expect(r.status).toBe(401)
    expect(r.body.error.code).toBe("unauthorized")
    const report = await d.fetch("/v1/report", { token: ingestToken })
    expect(report.status).toBe(401)
    await report.body?.cancel()
    const ok = await d.fetch("/v1/events", { token: apiToken })
    expect(ok.status).toBe(200)
    await ok.body?.cancel()
  })
})

// ---------------------------------------------------------------------------------------------

describe("POST /v1/events with http.ingestHmacSecret", () => {
  const secret = "whsec-3b7f0e2a9c4d1865"
  let d: Daemon
  beforeAll(async () => {
    d = await startDaemon({ config: { http: { ingestHmacSecret: secret } } })
  })
  afterAll(async () => {
    if (d !== undefined) expect((await d.stop("SIGTERM")).code).toBe(0)
  })

  const sign = (ts: string, body: string, key = secret) => "sha256=" + crypto.createHmac("sha256", key).update(`${ts}.${body}`).digest("hex")
  const now = () => String(Math.floor(Date.now() / 1000))
  const body = () => JSON.stringify([{ id: uid("hmac"), status: 500, body: { code: 50500, message: "Internal server error", data: null }, model: "Qwen/QwQ-32B" }])

  it("accepts a body signed over `<timestamp>.<raw body>` with a current timestamp", async () => {
    const b = body()
    const ts = now()
    const res = await post(d, b, { headers: { "x-faultline-timestamp": ts, "x-faultline-signature": sign(ts, b) } })
    expect(res.status).toBe(202)
    expect(res.body).toEqual({ accepted: 1, duplicates: 0, counted: 0, ignored: 0, rejected: [], rejectedCount: 0 })
    const id = (JSON.parse(b) as Array<{ id: string }>)[0]!.id
    expect((await eventById(d, id)).category).toBe("server_error")
  })

  it("refuses (401 with a reason) a wrong signature, missing headers, a timestamp 10 minutes off, a tampered body", async () => {
    const before = await idsOf(d)
    const b = body()
    const ts = now()
    const old = String(Math.floor(Date.now() / 1000) - 600)
    const ahead = String(Math.floor(Date.now() / 1000) + 600)
    const cases: Array<[string, Record<string, string>, string, RegExp]> = [
      ["wrong secret", { "x-faultline-timestamp": ts, "x-faultline-signature": sign(ts, b, "not-the-secret") }, b, /signature/i],
      ["no headers", {}, b, /X-Faultline-Timestamp/i],
      ["no signature", { "x-faultline-timestamp": ts }, b, /X-Faultline-Signature/i],
      ["no timestamp", { "x-faultline-signature": sign(ts, b) }, b, /X-Faultline-Timestamp/i],
      ["10 minutes old", { "x-faultline-timestamp": old, "x-faultline-signature": sign(old, b) }, b, /minutes|timestamp/i],
      ["10 minutes ahead", { "x-faultline-timestamp": ahead, "x-faultline-signature": sign(ahead, b) }, b, /minutes|timestamp/i],
      ["milliseconds, not seconds", { "x-faultline-timestamp": String(Date.now()), "x-faultline-signature": sign(String(Date.now()), b) }, b, /timestamp/i],
      ["signed other body", { "x-faultline-timestamp": ts, "x-faultline-signature": sign(ts, b) }, b.replace("500", "501"), /signature/i],
      ["not hex", { "x-faultline-timestamp": ts, "x-faultline-signature": "sha256=zz" }, b, /signature/i]
    ]
    for (const [what, headers, sent, reason] of cases) {
      const res = await post(d, sent, { headers })
      expect(res.status, what).toBe(401)
      expect(res.body.error.code, what).toBe("unauthorized")
      expect(res.body.error.message, what).toMatch(reason)
    }
    expect(await eventsAfter(d, before)).toEqual([])
    await healthy(d)
  })
})

// ---------------------------------------------------------------------------------------------

describe("POST /v1/events: secrets never reach the store or the log", () => {
  let d: Daemon
  let secretsPosted = false
  let stopped = false
  beforeAll(async () => {
    d = await startDaemon()
  })
  afterAll(async () => {
    if (d !== undefined && !stopped) expect((await d.stop("SIGTERM")).code).toBe(0)
  })

  const secrets = [
    "sk-live-4f9a7c2e1b8d6a3f0e5c9b7a",
    "sk-proj-9f8e7d6c5b4a3210fedcba9876543210",
    "sk-Zq8Wm2Lx5Nc7Vb3Hd9Kf4Tg6",
    "AKf93jdk29dkQp0Zy1",
    "hdr-sk-live-77aa88bb99cc00dd"
  ]

  it("redacts Authorization headers, sk- keys in messages and api_key= in URLs before storing and logging", async () => {
    const ids = [uid("sec"), uid("sec"), uid("sec"), uid("sec")]
    const res = await post(d, [
      {
        id: ids[0],
        raw: `POST /v1/chat/completions HTTP/1.1\nAuthorization: Bearer ${secrets[0]}\nHTTP 401 {"code":401,"message":"Invalid token","data":null}`
      },
      {
        id: ids[1],
        message: `openai.AuthenticationError: Error code: 401 - {'error': {'message': 'Incorrect API key provided: ${secrets[1]}. You can find your API key at https://platform.openai.com/account/api-keys.', 'type': 'invalid_request_error', 'param': None, 'code': 'invalid_api_key'}}`
      },
      {
        id: ids[2],
        status: 429,
        body: TPM_BODY,
        model: "Qwen/Qwen2.5-7B-Instruct",
        message: `retrying with key ${secrets[2]} after 429`,
        headers: { Authorization: `Bearer ${secrets[4]}` }
      },
      {
        id: ids[3],
        error: `connect ECONNREFUSED 10.0.0.7:443 while calling https://llm-gw.internal/v1/chat/completions?api_key=${secrets[3]}&model=Qwen/QwQ-32B`
      }
    ])
    expect(res.status).toBe(202)
    expect(res.body).toEqual({ accepted: 4, duplicates: 0, counted: 0, ignored: 0, rejected: [], rejectedCount: 0 })

    const stored = (await allEvents(d)).filter((e) => ids.includes(e.id))
    expect(stored.map((e) => e.category).sort()).toEqual(["auth_key", "auth_key", "rate_limit", "transport"])
    const served = JSON.stringify(stored)
    for (const s of secrets) expect(served).not.toContain(s)
    expect(served).toContain("<redacted>")
    for (const e of stored) expect(e.sample, e.id).toContain("<redacted>")

    // the same events through the other read routes
    const others = JSON.stringify([await d.json("/v1/incidents"), await d.json("/v1/report"), await d.json("/v1/alerts"), await d.json("/v1/tickets")])
    for (const s of secrets) expect(others).not.toContain(s)

    secretsPosted = true
  })

  it("leaves none of them in the daemon's own log (stdout and stderr, read after it exited)", async () => {
    expect(secretsPosted).toBe(true)
    // the whole log is known only once the process has exited and its pipes are drained
    expect((await d.stop("SIGTERM")).code).toBe(0)
    stopped = true
    await drained(d)
    const log = d.stdout() + d.stderr()
    expect(d.logs().length).toBeGreaterThan(0)
    for (const s of secrets) expect(log).not.toContain(s)
    expect(log).not.toMatch(/sk-(live|proj)-[0-9A-Za-z]/)
  })
})
