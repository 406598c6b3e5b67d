/**
 * Hostile input against the built daemon (CONTRACT sections 3 and 6): tailed files with
 * monstrous lines, webhook bodies that lie or nest without end, garbage in queries and headers,
 * slow clients. After every abuse the daemon still answers /healthz quickly, still accepts and
 * stores a good record, and never answers 500.
 */
import * as fs from "node:fs"
import * as http from "node:http"
import * as net from "node:net"
import * as path from "node:path"
import { rawExchange as rawExchangeOn } from "../support/http.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Daemon, startDaemon, waitFor } from "../support/daemon.js"

// ---------------------------------------------------------------------------------------------
// local helpers

interface Answer {
  readonly status: number
  readonly headers: http.IncomingHttpHeaders
  readonly text: string
  readonly ms: number
}

/** One request on a fresh connection (no keep-alive pool), any method and headers, bounded in time. */
const request = (
  d: Daemon,
  method: string,
  p: string,
  opts: { headers?: Record<string, string> | Array<[string, string]>; body?: string | Buffer; timeoutMs?: number } = {}
): Promise<Answer> =>
  new Promise((resolve, reject) => {
    const t0 = Date.now()
    // raw header pairs (repeats allowed); a raw list gets no Host or Content-Length from Node
    const pairs = Array.isArray(opts.headers) ? opts.headers : Object.entries(opts.headers ?? {})
    const headers: Array<string> = []
    if (!pairs.some(([k]) => k.toLowerCase() === "host")) headers.push("host", `127.0.0.1:${d.port}`)
    if (opts.body !== undefined) headers.push("content-length", String(Buffer.byteLength(opts.body)))
    for (const [k, v] of pairs) headers.push(k, v)
    const req = http.request({ host: "127.0.0.1", port: d.port, method, path: p, agent: false, headers }, (res) => {
      const chunks: Buffer[] = []
      res.on("data", (c: Buffer) => chunks.push(c))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString("utf8"), ms: Date.now() - t0 }))
      res.on("error", reject)
    })
    req.setTimeout(opts.timeoutMs ?? 15_000, () => req.destroy(new Error(`${method} ${p.slice(0, 80)}: no answer within ${opts.timeoutMs ?? 15_000} ms`)))
    req.on("error", reject)
    req.end(opts.body)
  })

const rawExchange = (d: Daemon, bytes: Buffer, timeoutMs?: number) => rawExchangeOn(d.port, bytes, timeoutMs)

const postHead = (d: Daemon, contentLength: number | null, extra: ReadonlyArray<string> = []): string =>
  [
    "POST /v1/events HTTP/1.1",
    `Host: 127.0.0.1:${d.port}`,
    "Content-Type: application/json",
    ...(contentLength === null ? [] : [`Content-Length: ${contentLength}`]),
    ...extra,
    "",
    ""
  ].join("\r\n")

const parseJson = (text: string): any => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** faultline's own error body (CONTRACT section 6). */
const expectErrorBody = (a: { status: number; text: string }, what: string): void => {
  const body = parseJson(a.text)
  expect(body, `${what}: ${a.status} answered ${JSON.stringify(a.text.slice(0, 300))}`).toMatchObject({
    error: { code: expect.any(String), message: expect.any(String) }
  })
  expect(body.error.code.length, what).toBeGreaterThan(0)
  expect(body.error.message.length, what).toBeGreaterThan(0)
}

/**
 * Node's HTTP parser answers some garbage itself, before faultline sees a request (an unknown
 * method, bytes after the declared body, headers over 16 KiB): a bare 400 / 431 with no body.
 */
const isNodeParserReject = (a: { status: number; text: string; contentType?: string | undefined }): boolean =>
  (a.status === 400 || a.status === 431) && a.text === "" && a.contentType === undefined

/** A clear 4xx with the error body, or a 202 whose rejected items carry an index and a reason. Never 5xx. */
const expectCleanIngestAnswer = (a: { status: number; text: string }, what: string): any => {
  expect(a.status, `${what}: ${a.text.slice(0, 300)}`).not.toBeGreaterThanOrEqual(500)
  const body = parseJson(a.text)
  if (a.status === 202) {
    expect(body, what).toMatchObject({ accepted: expect.any(Number), duplicates: expect.any(Number), rejected: expect.any(Array) })
    for (const r of body.rejected) {
      expect(r, what).toMatchObject({ index: expect.any(Number), error: expect.any(String) })
      expect(r.error.trim().length, what).toBeGreaterThan(0)
    }
  } else {
    expect(a.status, `${what}: ${a.text.slice(0, 300)}`).toBeGreaterThanOrEqual(400)
    expect(a.status, what).toBeLessThan(500)
    expectErrorBody(a, what)
  }
  return body
}

let serial = 0
const uid = (p: string): string => `${p}-${process.pid}-${Date.now().toString(36)}-${(serial++).toString(36)}`

/** Daemon's resident memory in MB, from /proc/<pid>/status. */
const rssMb = (d: Daemon): number => {
  const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(fs.readFileSync(`/proc/${d.proc.pid}/status`, "utf8"))
  if (m === null) throw new Error("no VmRSS")
  return Number(m[1]) / 1024
}

const RSS_LIMIT_MB = 300
/** /healthz on a fresh connection, on a loaded 2-core machine. */
const HEALTH_MS = 3000

/**
 * The daemon survived: alive, /healthz 200 quickly on a fresh connection, a good record still
 * gets 202 and is stored (found by its unique service), memory bounded.
 */
const expectServing = async (d: Daemon, what: string, token?: string): Promise<void> => {
  const auth: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` }
  expect(d.proc.exitCode, `${what}: daemon exited; stderr: ${d.stderr().slice(-1000)}`).toBeNull()
  const h = await request(d, "GET", "/healthz")
  expect(h.status, what).toBe(200)
  expect(h.ms, `${what}: /healthz took ${h.ms} ms`).toBeLessThan(HEALTH_MS)
  const service = uid("alive")
  const body = JSON.stringify({ id: service, status: 503, message: "System is too busy now. Please try again later.", model: "Qwen/QwQ-32B", service })
  const post = await request(d, "POST", "/v1/events", { headers: { "content-type": "application/json", ...auth }, body })
  expect(post.status, `${what}: good POST answered ${post.text}`).toBe(202)
  expect(parseJson(post.text), what).toMatchObject({ accepted: 1 })
  const listed = await request(d, "GET", `/v1/events?service=${service}&since=1h`, { headers: auth })
  expect(listed.status, what).toBe(200)
  expect(parseJson(listed.text).events.map((e: any) => e.id), what).toEqual([service])
  expect(rssMb(d), `${what}: RSS`).toBeLessThan(RSS_LIMIT_MB)
}

/** Every stored event in the last 30 days (walks the pages). */
const allEvents = async (d: Daemon): Promise<any[]> => {
  const out: any[] = []
  let cursor: string | null = null
  for (let page = 0; page < 100; page++) {
    const q: string = `/v1/events?since=30d&limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`
    const r = await d.json<{ events: any[]; nextCursor: string | null }>(q)
    out.push(...r.events)
    if (r.nextCursor === null) return out
    cursor = r.nextCursor
  }
  throw new Error("more than 100 pages of events")
}

/** Logged errors (pino level >= 50) that say a request failed inside the daemon. */
const internalErrors = (d: Daemon): Array<Record<string, unknown>> =>
  d.logs().filter((l) => typeof l.level === "number" && l.level >= 50)

// ---------------------------------------------------------------------------------------------

describe("tailed files with hostile content", () => {
  let d: Daemon
  let log: string

  beforeAll(async () => {
    d = await startDaemon()
    log = path.join(d.dir, "logs", "app.log")
    fs.mkdirSync(path.dirname(log), { recursive: true })
    fs.writeFileSync(log, "")
  })
  afterAll(async () => {
    await d?.stop()
  })

  const linesRead = async (): Promise<number> => {
    const text = await (await d.fetch("/metrics")).text()
    let n = 0
    for (const m of text.matchAll(/^faultline_lines_read_total\{source="file:[^"]*"\} (\d+)/gm)) n += Number(m[1])
    return n
  }

  /** A failure line with a unique service; resolves with its stored event. */
  const appendGood = async (tag: string): Promise<any> => {
    const service = uid(`tail-${tag}`)
    const line = {
      time: new Date().toISOString(),
      level: "error",
      msg: "openai chat completion failed",
      service,
      status: 500,
      model: "Qwen/Qwen2.5-7B-Instruct",
      body: { code: 50000, message: `Internal error after ${tag}`, data: null }
    }
    fs.appendFileSync(log, JSON.stringify(line) + "\n")
    const page = await waitFor(
      `the failure line after ${tag} to be stored`,
      async () => {
        const r = await d.json<{ events: any[] }>(`/v1/events?service=${service}&since=1h`)
        return r.events.length > 0 ? r.events : null
      },
      30_000,
      100
    )
    expect(page).toHaveLength(1)
    expect(page[0]).toMatchObject({ status: 500, code: 50000, category: "server_error", service })
    return page[0]
  }

  /** Append hostile bytes (and a newline), then a good line: both read, the good one stored, daemon fine. */
  const abuse = async (tag: string, bytes: Buffer | string, minLines: number): Promise<void> => {
    const before = await linesRead()
    fs.appendFileSync(log, bytes)
    await appendGood(tag)
    // counted: every line of the abuse plus the good one
    expect(await linesRead(), `${tag}: lines counted`).toBeGreaterThanOrEqual(before + minLines + 1)
    await expectServing(d, tag)
  }

  it("reads a 5 MB line that has no newline for a while, and the failure written after it", async () => {
    const before = await linesRead()
    // multi-byte characters, so that the 1 MiB cuts fall inside characters
    const big = Buffer.from("€".repeat(Math.ceil((5 * 1024 * 1024) / 3)))
    fs.appendFileSync(log, big)
    // the line is not finished: the daemon keeps answering while it waits for the newline
    await expectServing(d, "an unfinished 5 MB line")
    fs.appendFileSync(log, "\n")
    await appendGood("a 5 MB line")
    // one line, however long: the failure after it is line +2, not +6 (the tailer once counted a line per MiB)
    expect(await linesRead()).toBe(before + 2)
    await expectServing(d, "a 5 MB line")
  })

  it("reads invalid UTF-8, and stores the failure it holds", async () => {
    const tag = uid("badutf8")
    const bytes = Buffer.concat([
      Buffer.from(`${new Date().toISOString()} ERROR openai chat completion failed: HTTP 500 ${tag} `),
      Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xe2, 0x82, 0xed, 0xa0, 0x80]),
      Buffer.from(` {"code":50000,"message":"bad `),
      Buffer.from([0xc0, 0xaf, 0xf8, 0x88]),
      Buffer.from(` utf"}\n`)
    ])
    await abuse("invalid UTF-8", bytes, 1)
    const stored = (await allEvents(d)).filter((e) => typeof e.sample === "string" && e.sample.includes(tag))
    expect(stored).toHaveLength(1)
    expect(stored[0]).toMatchObject({ status: 500, code: 50000 })
  })

  it("reads NUL bytes inside lines, and stores the failure they hold", async () => {
    const tag = uid("nul")
    const bytes = Buffer.from(`${new Date().toISOString()} ERROR openai\u0000chat failed: HTTP 500 ${tag} {"code":50000,"message":"nul\u0000inside"}\n\u0000\u0000\u0000\n`)
    await abuse("NUL bytes", bytes, 2)
    const stored = (await allEvents(d)).filter((e) => typeof e.sample === "string" && e.sample.includes(tag))
    expect(stored).toHaveLength(1)
    expect(stored[0]).toMatchObject({ status: 500, code: 50000 })
  })

  it("reads a line of 100k '{' (a brace that never closes) without swallowing what follows", async () => {
    await abuse("100k braces", "{".repeat(100_000) + "\n", 1)
  })

  it("reads a JSON line with 100k keys, and stores the failure it is", async () => {
    const service = uid("manykeys")
    const o: Record<string, unknown> = { level: "error", msg: "openai chat completion failed", status: 500, service, body: { code: 50000, message: "Internal error" } }
    for (let i = 0; i < 100_000; i++) o[`k${i}`] = i
    await abuse("a JSON line with 100k keys", JSON.stringify(o) + "\n", 1)
    const r = await d.json<{ events: any[] }>(`/v1/events?service=${service}&since=1h`)
    expect(r.events).toHaveLength(1)
    expect(r.events[0]).toMatchObject({ status: 500, category: "server_error" })
    expect(Buffer.byteLength(r.events[0].sample, "utf8")).toBeLessThanOrEqual(4096)
  })

  it("reads numbers that overflow (status 1e400, a 30-digit code) as text, never a crash", async () => {
    const tag = uid("overflow")
    const lines = [
      `{"level":"error","msg":"openai chat completion failed ${tag}-a","status":1e400,"body":{"code":123456789012345678901234567890,"message":"overflow"}}`,
      `{"level":"error","msg":"openai chat completion failed ${tag}-b","status":500,"body":{"code":123456789012345678901234567890,"message":"Internal error"}}`,
      `{"level":"error","msg":"openai chat completion failed ${tag}-c","statusCode":-1e400,"status_code":5e-324,"body":"{\\"code\\":1e999,\\"message\\":\\"x\\"}"}`
    ]
    await abuse("overflowing numbers", lines.join("\n") + "\n", 3)
    const stored = (await allEvents(d)).filter((e) => typeof e.sample === "string" && e.sample.includes(tag))
    const b = stored.find((e) => e.sample.includes(`${tag}-b`))
    expect(b).toMatchObject({ status: 500, category: "server_error" })
    for (const e of stored) {
      expect(e.status === null || (Number.isInteger(e.status) && e.status >= 100 && e.status <= 599)).toBe(true)
    }
  })

  it("kept its memory bounded and logged no internal error through all of it", async () => {
    expect(rssMb(d)).toBeLessThan(RSS_LIMIT_MB)
    expect(internalErrors(d).map((l) => l.msg)).toEqual([])
  })
})

describe("webhook bodies that are hostile", () => {
  let d: Daemon

  beforeAll(async () => {
    d = await startDaemon()
  })
  afterAll(async () => {
    await d?.stop()
  })

  const post = (body: string | Buffer, contentType = "application/json") =>
    request(d, "POST", "/v1/events", { headers: { "content-type": contentType }, body })

  const storedById = async (id: string): Promise<any | undefined> => (await allEvents(d)).find((e) => e.id === id)

  it.each([
    ["[[[...]]] 10k deep", () => "[".repeat(10_000) + "]".repeat(10_000)],
    ['{"a":{"a":...}} 10k deep', () => '{"a":'.repeat(10_000) + "1" + "}".repeat(10_000)],
    ["a 500 record with a body 10k deep", () => `{"status":500,"message":"Internal error","body":${'{"a":'.repeat(10_000)}1${"}".repeat(10_000)}}`],
    ["an unfinished 10k-deep array", () => "[".repeat(10_000)]
  ])("answers %s cleanly (JSON)", async (what, make) => {
    expectCleanIngestAnswer(await post(make()), what)
    await expectServing(d, what)
  })

  it("answers 10k-deep NDJSON lines cleanly, and stores the good line among them", async () => {
    const id = uid("nd-deep")
    const body = ["[".repeat(10_000) + "]".repeat(10_000), '{"a":'.repeat(10_000) + "1" + "}".repeat(10_000), JSON.stringify({ id, status: 500, message: "Internal error" }), "[".repeat(10_000)].join("\n")
    const res = expectCleanIngestAnswer(await post(body, "application/x-ndjson"), "deep NDJSON")
    expect(res.accepted).toBe(1)
    expect(res.rejected.map((r: any) => r.index)).toEqual(expect.arrayContaining([0, 3]))
    expect(await storedById(id)).toMatchObject({ status: 500, category: "server_error" })
    await expectServing(d, "deep NDJSON")
  })

  it("stores a record with 100k keys (well under 1 MiB), or rejects it with a reason", async () => {
    const id = uid("keys")
    const o: Record<string, unknown> = { id, status: 500, message: "Internal error" }
    for (let i = 0; i < 60_000; i++) o[`k${i}`] = i
    const text = JSON.stringify(o)
    expect(text.length).toBeLessThan(1024 * 1024)
    const res = expectCleanIngestAnswer(await post(text), "60k keys")
    expect(res.accepted).toBe(1)
    expect(Buffer.byteLength((await storedById(id)).sample, "utf8")).toBeLessThanOrEqual(4096)
    // 100k keys is 1.4 MB: over the limit
    for (let i = 60_000; i < 100_000; i++) o[`k${i}`] = i
    const big = await post(JSON.stringify(o))
    expect(big.status).toBe(413)
    expectErrorBody(big, "100k keys")
    await expectServing(d, "100k keys")
  })

  it("answers 413 to a body of 1 MiB + 1 byte, declared or chunked, and stores none of it", async () => {
    const id = uid("big")
    const filler = JSON.stringify({ id, status: 500, message: "Internal error", pad: "" })
    const body = filler.replace(`"pad":""`, `"pad":"${"p".repeat(1024 * 1024 + 1 - filler.length)}"`)
    expect(Buffer.byteLength(body)).toBe(1024 * 1024 + 1)
    const declared = await rawExchange(d, Buffer.concat([Buffer.from(postHead(d, Buffer.byteLength(body))), Buffer.from(body)]))
    expect(declared.status).toBe(413)
    expectErrorBody({ status: declared.status, text: declared.body }, "declared 1 MiB + 1")
    const chunk = (b: string) => `${Buffer.byteLength(b).toString(16)}\r\n${b}\r\n`
    const chunked = await rawExchange(
      d,
      Buffer.from(postHead(d, null, ["Transfer-Encoding: chunked"]) + chunk(body.slice(0, 500_000)) + chunk(body.slice(500_000)) + "0\r\n\r\n")
    )
    expect(chunked.status).toBe(413)
    expectErrorBody({ status: chunked.status, text: chunked.body }, "chunked 1 MiB + 1")
    // exactly 1 MiB is fine
    const exact = body.replace(`"pad":"p`, `"pad":"`)
    expect(Buffer.byteLength(exact)).toBe(1024 * 1024)
    expect(expectCleanIngestAnswer(await post(exact), "exactly 1 MiB").accepted).toBe(1)
    expect((await storedById(id))?.status).toBe(500)
    await expectServing(d, "1 MiB + 1")
  })

  it("answers a body longer than its Content-Length (the rest is garbage) with a clean 4xx", async () => {
    const body = JSON.stringify({ id: uid("cl-small"), status: 500, message: "Internal error" })
    const a = await rawExchange(d, Buffer.from(postHead(d, 10, ["Connection: close"]) + body))
    expect(a.status).toBe(400)
    const contentType = /\r\ncontent-type: *([^\r]+)/i.exec(a.all)?.[1]
    // either faultline's bad_json for the first 10 bytes, or Node's own 400 for the bytes after them
    if (!isNodeParserReject({ status: a.status, text: a.body, contentType })) {
      expectErrorBody({ status: a.status, text: a.body }, "Content-Length smaller than the body")
    }
    await expectServing(d, "Content-Length smaller than the body")
  })

  it("is not held up by a client that declares more body than it sends and then stalls or leaves", async () => {
    const id = uid("cl-large")
    const partial = `{"id":"${id}","status":500,`
    const sockets: net.Socket[] = []
    try {
      for (let i = 0; i < 10; i++) {
        const s = net.connect(d.port, "127.0.0.1")
        s.on("error", () => undefined)
        s.write(postHead(d, 1000) + partial)
        sockets.push(s)
      }
      // the stalled uploads hold no lock: the daemon serves others meanwhile
      await expectServing(d, "10 stalled uploads")
      // then the clients leave without finishing
      for (const s of sockets) s.destroy()
      await expectServing(d, "10 abandoned uploads")
      expect(await storedById(id)).toBeUndefined()
    } finally {
      for (const s of sockets) s.destroy()
    }
  })

  it("stores a record whose string holds invalid UTF-8 bytes (as U+FFFD)", async () => {
    const id = uid("badutf8")
    const body = Buffer.concat([Buffer.from(`{"id":"${id}","status":500,"message":"bad `), Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xed, 0xa0, 0x80]), Buffer.from(` bytes"}`)])
    expect(expectCleanIngestAnswer(await post(body), "invalid UTF-8").accepted).toBe(1)
    const e = await storedById(id)
    expect(e).toMatchObject({ status: 500, category: "server_error" })
    expect(e.message).toContain("\ufffd")
    await expectServing(d, "invalid UTF-8")
  })

  it("refuses a raw NUL inside a JSON string (400 bad_json) and stores an escaped one", async () => {
    const raw = await post(Buffer.from(`{"id":"${uid("nul")}","status":500,"message":"a\u0000b"}`))
    expect(raw.status).toBe(400)
    expect(parseJson(raw.text).error.code).toBe("bad_json")
    const id = uid("nul-esc")
    expect(expectCleanIngestAnswer(await post(`{"id":"${id}","status":500,"message":"a\\u0000b","model":"x\\u0000y"}`), "escaped NUL").accepted).toBe(1)
    expect((await storedById(id))?.message).toBe("a\u0000b")
    const nd = await post(Buffer.from(`\u0000\u0000\n{"id":"${uid("nul-nd")}","status":500,"message":"Internal error"}\n`), "application/x-ndjson")
    expect(expectCleanIngestAnswer(nd, "NUL line in NDJSON").rejected.map((r: any) => r.index)).toEqual([0])
    await expectServing(d, "NUL bytes")
  })

  it("rejects, by index and with a reason, numbers that overflow and statuses that are floats or negative; keeps the good record", async () => {
    const good = uid("num-good")
    const body = `[
      {"id":"${uid("n")}","status":1e400,"message":"x"},
      {"id":"${uid("n")}","status":500,"code":123456789012345678901234567890,"message":"x"},
      {"id":"${uid("n")}","status":500.5,"message":"x"},
      {"id":"${uid("n")}","status":-500,"message":"x"},
      {"id":"${uid("n")}","status":-1e400,"message":"x"},
      {"id":"${good}","status":500,"message":"Internal error","occurredAt":1e400}
    ]`
    const res = expectCleanIngestAnswer(await post(body), "overflowing numbers")
    expect(res.accepted).toBe(1)
    expect(res.rejected.map((r: any) => r.index)).toEqual([0, 1, 2, 3, 4])
    expect(res.rejected.map((r: any) => r.error)).toEqual([
      expect.stringMatching(/status/),
      expect.stringMatching(/code/),
      expect.stringMatching(/status/),
      expect.stringMatching(/status/),
      expect.stringMatching(/status/)
    ])
    const e = await storedById(good)
    expect(e).toMatchObject({ status: 500 })
    expect(Number.isFinite(Date.parse(e.occurredAt))).toBe(true)
    await expectServing(d, "overflowing numbers")
  })

  it("rejects an id of 10 KB with a reason and stores nothing under it", async () => {
    const id = "i".repeat(10_000)
    const res = expectCleanIngestAnswer(await post(JSON.stringify([{ id, status: 500, message: "x" }, { id: uid("ok"), status: 500, message: "x" }])), "10 KB id")
    expect(res.accepted).toBe(1)
    expect(res.rejected).toEqual([{ index: 0, error: expect.stringMatching(/id/) }])
    expect(await storedById(id)).toBeUndefined()
    await expectServing(d, "10 KB id")
  })

  it("answers a raw record of 64 KB+ cleanly (202 with a reason, or stored)", async () => {
    const id = uid("raw64k")
    const raw = `${new Date().toISOString()} ERROR openai chat completion failed: HTTP 500 {"code":50000,"message":"Internal error"} trace=${"t".repeat(70_000)}`
    const res = expectCleanIngestAnswer(await post(JSON.stringify([{ id, raw }, { id: uid("ok"), status: 500, message: "x" }])), "64 KB+ raw")
    expect(res.accepted + res.rejected.length).toBe(2)
    await expectServing(d, "64 KB+ raw")
  })

  // Product bug (see the report): the webhook refuses what the tailer cuts and stores.
  it("cuts a raw record of 64 KB+ and stores it, as the tailer does", async () => {
    const id = uid("raw64k-stored")
    const raw = `${new Date().toISOString()} ERROR openai chat completion failed: HTTP 500 {"code":50000,"message":"Internal error"} trace=${"t".repeat(70_000)}`
    const res = expectCleanIngestAnswer(await post(JSON.stringify({ id, raw })), "64 KB+ raw")
    expect(res.accepted).toBe(1)
    const e = await storedById(id)
    expect(e).toMatchObject({ status: 500, code: 50000, category: "server_error" })
    expect(Buffer.byteLength(e.sample, "utf8")).toBeLessThanOrEqual(4096)
  })

  // Product bug (see the report): parseStructured's JSON.stringify / redact / JSON.parse round trip
  // throws on these records, and the failure is counted as ignored ("unreadable"), silently.
  it("stores a 500 whose extra field nests 10k deep, and a 401 whose authorization header is null", async () => {
    const deep = uid("deep500")
    const nullAuth = uid("nullauth401")
    const res = expectCleanIngestAnswer(
      await post(
        `[{"id":"${deep}","status":500,"message":"Internal error","kubernetes":${'{"a":'.repeat(10_000)}1${"}".repeat(10_000)}},` +
          JSON.stringify({ id: nullAuth, status: 401, message: "Invalid token", request: { headers: { authorization: null } } }) +
          "]"
      ),
      "deep 500 and null authorization"
    )
    expect({ accepted: res.accepted, ignored: res.ignored }).toEqual({ accepted: 2, ignored: 0 })
    expect(await storedById(deep)).toMatchObject({ status: 500 })
    expect(await storedById(nullAuth)).toMatchObject({ status: 401, category: "auth_key" })
  })

  // Found by the fuzz test: a string code looked up in a plain object found Object.prototype.
  it("stores records whose code or error type is a name of Object.prototype as unknown, beside the others", async () => {
    const hostile = ["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf"].flatMap((n) => [
      { id: uid("proto-code"), code: n, message: "something odd happened" },
      { id: uid("proto-type"), message: "something odd happened", body: { error: { type: n, code: n, message: "boom" } } }
    ])
    const good = { id: uid("proto-good"), status: 429, message: "Rate limit reached for requests per minute (RPM)" }
    const res = expectCleanIngestAnswer(await post(JSON.stringify([...hostile, good])), "prototype names")
    expect(res).toMatchObject({ accepted: hostile.length + 1, rejected: [] })
    const stored = await allEvents(d)
    for (const { id } of hostile) expect(stored.find((e) => e.id === id), id).toMatchObject({ category: "unknown", severity: "warning" })
    expect(stored.find((e) => e.id === good.id)).toMatchObject({ category: "rate_limit", rateLimitKind: "RPM" })
    await expectServing(d, "prototype names")
  })

  it("logged no internal error through all of it", async () => {
    expect(internalErrors(d).map((l) => l.msg)).toEqual([])
    expect(rssMb(d)).toBeLessThan(RSS_LIMIT_MB)
  })
})

describe("query strings, headers and methods that are hostile, on every endpoint", () => {
  let d: Daemon

  beforeAll(async () => {
    d = await startDaemon()
  })
  afterAll(async () => {
    await d?.stop()
  })

  const paths = ["/v1/events", "/v1/report", "/v1/incidents", "/v1/alerts", "/v1/tickets", "/v1/notifications", "/v1/silences", "/", "/metrics", "/openapi.json"]
  const randomBase64 = (n: number): string => Buffer.from(Array.from({ length: n }, (_, i) => (i * 7919 + 13) % 256)).toString("base64")
  const queries = [
    `q=${"a".repeat(8 * 1024)}`,
    `since=${"9".repeat(8 * 1024)}d`,
    `cursor=${"A".repeat(8 * 1024)}`,
    "limit=1&limit=2",
    "since=1h&since=2h&until=now&until=",
    "state=firing&state=resolved",
    "since=%zz",
    "limit=%zz&cursor=%",
    "since=%00",
    "model=%00%00&service=%C0%AF",
    "model=%E2%9C%93%F0%9F%98%80&service=%ED%A0%80",
    "state=%E2%9C%93",
    "since=99999999999d",
    "since=-1h",
    "until=0001-01-01T00:00:00Z&since=9999-12-31T23:59:59Z",
    "limit=-1",
    "limit=0",
    "limit=1e309",
    "limit=NaN",
    "limit=0x10",
    "status=1e3",
    `cursor=${encodeURIComponent(randomBase64(48))}`,
    `cursor=${randomBase64(48)}`,
    "cursor=-1",
    "receiver=%00&state=dead",
    "window=99999999999d",
    "%zz=%zz&&&==&=",
    "[]=1&a[b]=2&__proto__=x&constructor=y"
  ]

  /** Any answer that is not a 5xx; a 4xx carries the error body (Node's own 431 has no body). */
  const expectNot5xx = (a: Answer, what: string): void => {
    expect(a.status, `${what}: ${a.status} ${a.text.slice(0, 300)}`).toBeLessThan(500)
    if (a.status >= 400 && !isNodeParserReject({ status: a.status, text: a.text, contentType: a.headers["content-type"] })) expectErrorBody(a, what)
  }

  it("answers garbage query strings with 200 or a 4xx error body, never 5xx", async () => {
    const seen = new Set<number>()
    for (const p of paths) {
      for (const q of queries) {
        const a = await request(d, "GET", `${p}?${q}`)
        seen.add(a.status)
        expectNot5xx(a, `GET ${p}?${q.slice(0, 60)}`)
      }
    }
    expect([...seen].some((s) => s === 400)).toBe(true)
    await expectServing(d, "garbage query strings")
  })

  it("answers query strings the contract rejects with 400 bad_query", async () => {
    for (const [p, q] of [
      ["/v1/events", "limit=-1"],
      ["/v1/events", "limit=1e309"],
      ["/v1/events", "since=99999999999d"],
      ["/v1/report", "since=99999999999d"],
      ["/v1/incidents", "since=%zz"],
      ["/v1/events", `cursor=${randomBase64(48)}`],
      ["/v1/alerts", "limit=-1"],
      ["/v1/tickets", "state=%E2%9C%93"],
      ["/v1/notifications", "limit=1e309"],
      ["/v1/silences", "cursor=-1"]
    ] as const) {
      const a = await request(d, "GET", `${p}?${q}`)
      expect(a.status, `${p}?${q}: ${a.text}`).toBe(400)
      expect(parseJson(a.text).error.code, `${p}?${q}`).toBe("bad_query")
    }
  })

  it("answers huge, repeated and odd headers with 200 or a 4xx, never 5xx", async () => {
    const many: Array<[string, string]> = Array.from({ length: 200 }, (_, i) => [`x-h${i}`, `v${i}`])
    const cases: Array<[string, Record<string, string> | Array<[string, string]>]> = [
      ["a 16 KB Authorization", { authorization: `Bearer ${"a".repeat(16 * 1024)}` }],
      ["a 15 KB Authorization", { authorization: `Bearer ${"a".repeat(15 * 1024)}` }],
      ["a Basic Authorization of garbage", { authorization: `Basic ${"%%%".repeat(100)}` }],
      ["200 headers", many],
      ["200 Authorization headers", Array.from({ length: 200 }, (_, i): [string, string] => ["authorization", `Bearer t${i}`])],
      ["unicode in a header (latin1)", { "x-note": "\u00e9\u00ff\u00c0" }],
      ["a content-type of garbage", { "content-type": "\u00ff/;;;=" }],
      ["Accept of 4 KB", { accept: "text/html;q=0.1,".repeat(256) }]
    ]
    for (const p of paths) {
      for (const [what, headers] of cases) {
        const a = await request(d, "GET", p, { headers })
        expectNot5xx(a, `GET ${p} with ${what}`)
      }
    }
    await expectServing(d, "hostile headers")
  })

  it("answers unsupported methods on every path with a 4xx error body, never 5xx", async () => {
    for (const p of [...paths, "/healthz", "/readyz", "/v1/tickets/x/acknowledge", "/v1/silences/x", "/nope"]) {
      for (const method of ["PATCH", "TRACE", "PUT", "DELETE", "OPTIONS", "POST", "PROPFIND", "CONNECTX"]) {
        if ((p === "/v1/silences" || p === "/v1/events") && method === "POST") continue
        if (p.startsWith("/v1/tickets/") && method === "POST") continue
        if (p.startsWith("/v1/silences/") && method === "DELETE") continue
        const a = await request(d, method, p)
        expectNot5xx(a, `${method} ${p}`)
        expect(a.status, `${method} ${p}`).toBeGreaterThanOrEqual(400)
        // Node's parser refuses a method it does not know (CONNECTX) itself; faultline answers the others
        if (method !== "CONNECTX") expectErrorBody(a, `${method} ${p}`)
      }
    }
    await expectServing(d, "unsupported methods")
  })

  it("answers POST and DELETE with hostile ids and bodies on the alert routes without 5xx", async () => {
    const longId = "x".repeat(5000)
    const cases: Array<[string, string, string | undefined]> = [
      ["POST", `/v1/tickets/${longId}/acknowledge`, undefined],
      ["POST", "/v1/tickets/%zz/resolve", undefined],
      ["POST", "/v1/tickets/%00/resolve", undefined],
      ["DELETE", `/v1/silences/${longId}`, undefined],
      ["DELETE", "/v1/silences/%E2%9C%93", undefined],
      ["POST", "/v1/silences", "[".repeat(10_000)],
      ["POST", "/v1/silences", '{"a":'.repeat(10_000) + "1" + "}".repeat(10_000)],
      ["POST", "/v1/silences", JSON.stringify({ matchers: Array.from({ length: 10_000 }, () => ({ label: "model", value: "x" })), duration: "1h" })],
      ["POST", "/v1/silences", JSON.stringify({ matchers: [{ label: "model", value: "(a+)+$", isRegex: true }], duration: "99999999999d" })],
      ["POST", "/v1/silences", JSON.stringify({ matchers: [{ label: "model", value: "[", isRegex: true }], duration: "1h" })],
      ["POST", "/v1/silences", "\u0000"]
    ]
    for (const [method, p, body] of cases) {
      const a = await request(d, method, p, { body, headers: body === undefined ? {} : { "content-type": "application/json" } })
      expectNot5xx(a, `${method} ${p.slice(0, 60)} ${String(body).slice(0, 40)}`)
    }
    await expectServing(d, "hostile alert routes")
  })

  it("logged no internal error through all of it", async () => {
    expect(internalErrors(d).map((l) => l.msg)).toEqual([])
  })
})

describe("request targets that are hostile (raw bytes on the socket)", () => {
  let d: Daemon
  const TOKEN = "hostile-api-token-0123456789"

  beforeAll(async () => {
    d = await startDaemon({ config: { http: { apiToken: TOKEN } }, apiToken: TOKEN })
  })
  afterAll(async () => {
    await d?.stop()
  })

  const rawGet = async (target: Buffer | string, headers: ReadonlyArray<string> = []) => {
    const head = Buffer.concat([Buffer.from("GET "), Buffer.from(target), Buffer.from(` HTTP/1.1\r\nHost: 127.0.0.1:${d.port}\r\nConnection: close\r\n${headers.map((h) => h + "\r\n").join("")}\r\n`)])
    const a = await rawExchange(d, head)
    const contentType = /\r\ncontent-type: *([^\r]+)/i.exec(a.all)?.[1]
    return { status: a.status, text: a.body, contentType }
  }

  it("answers raw UTF-8, invalid bytes and control characters in the target with a 4xx, never 5xx", async () => {
    const targets: Array<Buffer | string> = [
      Buffer.concat([Buffer.from("/v1/events?model="), Buffer.from("✓😀", "utf8")]),
      Buffer.concat([Buffer.from("/v1/events?model=a"), Buffer.from([0xff, 0xfe, 0x00])]),
      "/v1/rep\u0001ort",
      "/v1/events?model=%ED%A0%80%00",
      `/v1/events?${"a=1&".repeat(3000)}`
    ]
    for (const t of targets) {
      const a = await rawGet(t, [`Authorization: Bearer ${TOKEN}`])
      expect(a.status, `${JSON.stringify(t.toString())}: ${a.text.slice(0, 200)}`).toBeLessThan(500)
      if (a.status >= 400 && !isNodeParserReject(a)) expectErrorBody(a, JSON.stringify(t.toString()).slice(0, 80))
    }
    await expectServing(d, "raw request targets", TOKEN)
  })

  it("lets no path trick past the api token (only /healthz, /readyz and /metrics are open)", async () => {
    const tricks = [
      "/v1/events", "/healthz/../v1/events", "/metrics;/v1/events", "/v1/events/", "//v1/events", "/V1/EVENTS", "/v1/events%2f",
      "/v1%2fevents", "http://127.0.0.1/v1/events", "http://x/healthz/../v1/report", "/healthz#/v1/events", "/./v1/events", "/v1/./events",
      "/v1/events;x", "/v1/alerts/", "/", "/?", "*", "/%2F", "/v1/report?x=/healthz", "/v1/tickets?/metrics", "/healthz%00/../v1/events"
    ]
    for (const t of tricks) {
      for (const auth of [[], ["Authorization: Bearer wrong"], ["Authorization: Basic " + Buffer.from("u:wrong").toString("base64")], ["Authorization: Bearer " + TOKEN.slice(0, -1)]]) {
        const a = await rawGet(t, auth)
        expect(a.status, `${t} ${auth.join()}: ${a.status} ${a.text.slice(0, 200)}`).toBeGreaterThanOrEqual(400)
        expect(a.status, `${t}: ${a.text.slice(0, 200)}`).toBeLessThan(500)
        expect(a.text, t).not.toMatch(/"events":|"incidents":|"byCategory"|"alerts":|"tickets":/)
      }
    }
    const page = await rawGet("/")
    expect(page.status).toBe(401)
    // the open paths stay open, and the token works
    for (const t of ["/healthz", "/readyz", "/metrics", "/metrics?/v1/report"]) expect((await rawGet(t)).status, t).toBe(200)
    expect((await rawGet("/v1/events", [`Authorization: Bearer ${TOKEN}`])).status).toBe(200)
    await expectServing(d, "path tricks", TOKEN)
  })
})

describe("slow clients (slow-loris)", () => {
  let d: Daemon

  beforeAll(async () => {
    d = await startDaemon()
  })
  afterAll(async () => {
    await d?.stop()
  })

  it(
    "keeps serving while 50 sockets dribble a request one byte a second, and closes them (and stalled uploads) itself",
    async () => {
      const t0 = Date.now()
      const sockets: net.Socket[] = []
      const timers: NodeJS.Timeout[] = []
      const closedAt = new Map<net.Socket, number>()
      const open = (initial: string, dribble: string): void => {
        const s = net.connect(d.port, "127.0.0.1")
        s.on("error", () => undefined)
        // read what the daemon answers (its 408), so that its FIN is seen and "close" comes
        s.on("data", () => undefined)
        s.on("close", () => closedAt.set(s, Date.now() - t0))
        let k = 0
        s.write(initial)
        const timer = setInterval(() => {
          if (!s.destroyed && k < dribble.length) s.write(dribble[k++]!)
        }, 1000)
        timers.push(timer)
        sockets.push(s)
      }
      try {
        // partial request lines and partial headers, one byte a second
        for (let i = 0; i < 25; i++) open("G", `ET /v1/events?limit=${i}${"&x=1".repeat(50)} HTTP/1.1\r\n`)
        for (let i = 0; i < 25; i++) open(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n`, `X-Slow-${i}: ${"a".repeat(200)}\r\n`)
        // and uploads that declared a body and stalled
        const stalled: net.Socket[] = []
        for (let i = 0; i < 5; i++) {
          open(postHead(d, 1000) + '{"status":500,', "")
          stalled.push(sockets[sockets.length - 1]!)
        }

        // a fresh client is answered at once, again and again, while the slow sockets dribble on
        const dribblers = sockets.slice(0, 50)
        const sent = () => Math.min(...dribblers.map((s) => s.bytesWritten))
        for (let round = 0; round < 5; round++) {
          const h = await request(d, "GET", "/healthz", { timeoutMs: 5000 })
          expect(h.status).toBe(200)
          expect(h.ms, `round ${round}: /healthz took ${h.ms} ms`).toBeLessThan(HEALTH_MS)
          const before = sent()
          await waitFor("every slow socket to send one more byte", () => sent() > before, 5000, 50)
        }
        await expectServing(d, "50 slow-loris sockets")

        // headersTimeout is 10 s (checked every 30 s by Node): all header dribblers are closed within 45 s
        const slow = sockets.filter((s) => !stalled.includes(s))
        await waitFor(`the daemon to close the 50 slow sockets (${closedAt.size} closed)`, () => slow.every((s) => closedAt.has(s)), 45_000 - (Date.now() - t0), 200)
        for (const s of slow) expect(closedAt.get(s)!).toBeGreaterThanOrEqual(9_000)
        // requestTimeout is 30 s (checked every 30 s): the stalled uploads are closed within 75 s
        await waitFor(`the daemon to close the 5 stalled uploads`, () => stalled.every((s) => closedAt.has(s)), 75_000 - (Date.now() - t0), 200).catch((e) => {
          throw new Error(`${String(e)}; slow closed at ${slow.map((s) => closedAt.get(s)).join(",")}; stalled ${stalled.map((s) => closedAt.get(s)).join(",")}; now ${Date.now() - t0}`)
        })
        await expectServing(d, "after the slow sockets were closed")
      } finally {
        for (const t of timers) clearInterval(t)
        for (const s of sockets) s.destroy()
      }
    },
    110_000
  )

  it("logged no internal error", async () => {
    expect(internalErrors(d).map((l) => l.msg)).toEqual([])
  })
})
