/**
 * The read API, auth and configuration end to end (CONTRACT sections 1, 2, 6, 10): the built
 * CLI runs `serve` in a temp folder on an ephemeral loopback port and is driven over real HTTP.
 */
import { spawn, type ChildProcess } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { cliPath, type Daemon, freePort, startDaemon, tempDir, waitFor } from "../support/daemon.js"
import { answer, type Answer } from "../support/http.js"

// ---------------------------------------------------------------------------------------------
// local helpers

const HOUR = 3_600_000


const get = async (d: Daemon, p: string, init: RequestInit & { token?: string } = {}): Promise<Answer> => answer(await d.fetch(p, init))

/** The environment of the test run without any FAULTLINE_* variable, so only what a test sets applies. */
const cleanEnv = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = {}
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("FAULTLINE_")) env[k] = v
  return { ...env, ...extra }
}

/**
 * Run the built CLI to completion. Like runCli from test/support, but bounded: a `serve` that
 * wrongly starts instead of refusing is killed (by its own pid) and reported, not left running.
 */
const runBounded = (args: ReadonlyArray<string>, opts: { cwd: string; env?: Record<string, string>; timeoutMs?: number }) =>
  new Promise<{ code: number | null; stdout: string; stderr: string; timedOut: boolean }>((resolve) => {
    const p = spawn(process.execPath, [cliPath, ...args], { cwd: opts.cwd, env: cleanEnv(opts.env), stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    let timedOut = false
    p.stdout.on("data", (d) => (stdout += d))
    p.stderr.on("data", (d) => (stderr += d))
    const timer = setTimeout(() => {
      timedOut = true
      p.kill("SIGKILL")
    }, opts.timeoutMs ?? 20_000)
    p.on("close", (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr, timedOut })
    })
  })

/** A refusal: exit 2, nothing on stdout, one readable line on stderr, no stack trace. */
const expectRefusal = (r: { code: number | null; stdout: string; stderr: string; timedOut: boolean }, names: RegExp) => {
  expect(r.timedOut, `the command should exit by itself; stderr: ${r.stderr}`).toBe(false)
  expect(r.code, r.stderr).toBe(2)
  expect(r.stdout).toBe("")
  expect(r.stderr).toMatch(/^faultline: /)
  expect(r.stderr).toMatch(names)
  expect(r.stderr).not.toMatch(/^\s+at /m)
  expect(r.stderr).not.toMatch(/\.js:\d+/)
}
const oneLine = (stderr: string) => expect(stderr.trimEnd().split("\n"), stderr).toHaveLength(1)

/** Every page of GET /v1/events for a query, following nextCursor; also returns the pages. */
const walk = async (d: Daemon, query: string, token?: string): Promise<{ ids: string[]; pages: string[][] }> => {
  const pages: string[][] = []
  let cursor: string | null = null
  for (let i = 0; i < 100; i++) {
    const q: string = `/v1/events?${query}${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`
    const page = await d.json<{ events: Array<{ id: string }>; nextCursor: string | null }>(q, token === undefined ? {} : { token })
    pages.push(page.events.map((e) => e.id))
    if (page.nextCursor === null) return { ids: pages.flat(), pages }
    cursor = page.nextCursor
  }
  throw new Error(`pagination of ${query} did not end`)
}

const listIds = async (d: Daemon, query: string): Promise<string[]> => {
  const r = await get(d, `/v1/events?${query}`)
  expect(r.status, `${query}: ${r.text}`).toBe(200)
  expect(r.body.nextCursor).toBeNull()
  return r.body.events.map((e: { id: string }) => e.id)
}

const nonZero = (m: Record<string, number>): Record<string, number> => Object.fromEntries(Object.entries(m).filter(([, n]) => n > 0))

// ---------------------------------------------------------------------------------------------
// the seed: failures over three days (and one older), several categories, models and services

const M1 = "Qwen/Qwen2.5-7B-Instruct"
const M2 = "deepseek-ai/DeepSeek-V3"
const M3 = "Kwai-Kolors/Kolors"

interface Seed {
  readonly id: string
  readonly hoursAgo: number
  readonly category: string
  readonly kind: string | null
  readonly status: number
  readonly model: string
  readonly service: string
  readonly record: Record<string, unknown>
}

const svc = (code: number, message: string) => ({ code, message, data: null })
const SERVER_ERROR = "The server had an error while processing your request. Request id: "

const seeds: ReadonlyArray<Seed> = [
  { id: "rl-tpm-1", hoursAgo: 1, category: "rate_limit", kind: "TPM", status: 429, model: M1, service: "chat-api",
    record: { body: svc(50603, "Request was rejected due to rate limiting. Details: TPM limit reached.") } },
  { id: "rl-rpm-1", hoursAgo: 2, category: "rate_limit", kind: "RPM", status: 429, model: M1, service: "chat-api",
    record: { body: svc(50603, "Request was rejected due to rate limiting. Details: RPM limit reached.") } },
  { id: "ov-1", hoursAgo: 3, category: "overload", kind: null, status: 503, model: M2, service: "chat-api",
    record: { body: svc(50508, "System is too busy now. Please try again later.") } },
  { id: "se-2", hoursAgo: 4, category: "server_error", kind: null, status: 500, model: M2, service: "batch-worker",
    record: { body: svc(50500, SERVER_ERROR + "9a8b7c6d5e4f3a2b"), requestId: "9a8b7c6d5e4f3a2b" } },
  { id: "se-1", hoursAgo: 5, category: "server_error", kind: null, status: 500, model: M2, service: "batch-worker",
    record: { body: svc(50500, SERVER_ERROR + "3f2e1d0c9b8a7f6e"), requestId: "3f2e1d0c9b8a7f6e" } },
  { id: "ak-1", hoursAgo: 20, category: "auth_key", kind: null, status: 401, model: M1, service: "batch-worker",
    record: { body: svc(401, "Invalid token") } },
  { id: "rl-tpd-1", hoursAgo: 26, category: "rate_limit", kind: "TPD", status: 429, model: M2, service: "chat-api",
    record: { body: svc(50603, "Request was rejected due to rate limiting. Details: TPD limit reached.") } },
  { id: "mnf-1", hoursAgo: 30, category: "model_not_found", kind: null, status: 400, model: M3, service: "image-api",
    record: { body: svc(20012, "Model does not exist. Please check it carefully."), endpoint: "/v1/images/generations" } },
  { id: "q-1", hoursAgo: 50, category: "quota", kind: null, status: 402, model: M1, service: "chat-api",
    record: { body: svc(30001, "Sorry, your account balance is insufficient") } },
  { id: "ov-2", hoursAgo: 60, category: "overload", kind: null, status: 503, model: M2, service: "chat-api",
    record: { body: svc(50508, "System is too busy now. Please try again later.") } },
  { id: "rl-old", hoursAgo: 240, category: "rate_limit", kind: "TPM", status: 429, model: M1, service: "chat-api",
    record: { body: svc(50603, "Request was rejected due to rate limiting. Details: TPM limit reached.") } }
]

/** The seeds a filter selects, newest first (the order the API must answer in). */
const select = (f: (s: Seed) => boolean): string[] => seeds.filter(f).sort((a, b) => a.hoursAgo - b.hoursAgo).map((s) => s.id)

/** The numbers a report over `hours` back from now must show for the seeds matching `f`. */
const expectedReport = (hours: number, f: (s: Seed) => boolean = () => true) => {
  const inWindow = seeds.filter((s) => s.hoursAgo < hours && f(s))
  const count = <K extends string>(key: (s: Seed) => K | null) => {
    const m: Record<string, number> = {}
    for (const s of inWindow) {
      const k = key(s)
      if (k !== null) m[k] = (m[k] ?? 0) + 1
    }
    return m
  }
  const byModel = [...new Set(inWindow.map((s) => s.model))].map((model) => {
    const of = inWindow.filter((s) => s.model === model)
    const byCategory: Record<string, number> = {}
    for (const s of of) byCategory[s.category] = (byCategory[s.category] ?? 0) + 1
    return { model, total: of.length, byCategory }
  })
  return {
    total: inWindow.length,
    byCategory: count((s) => s.category),
    byRateLimitKind: count((s) => s.kind),
    byStatus: count((s) => String(s.status)),
    byModel: byModel.sort((a, b) => a.model.localeCompare(b.model))
  }
}

const REPORT_KEYS = ["alerts", "byCategory", "byModel", "byProvider", "byRateLimitKind", "byStatus", "calls", "failureRatio", "ingest", "tickets", "timeline", "top", "total", "window"]

// ---------------------------------------------------------------------------------------------

describe("the read API over seeded events", () => {
  let d: Daemon
  let seededAt = 0
  const occurredAt = new Map<string, string>()

  beforeAll(async () => {
    d = await startDaemon()
    seededAt = Date.now()
    const records = seeds.map((s) => {
      const at = new Date(seededAt - s.hoursAgo * HOUR).toISOString()
      occurredAt.set(s.id, at)
      return { id: s.id, occurredAt: at, status: s.status, model: s.model, service: s.service, ...s.record }
    })
    const r = await answer(await d.fetch("/v1/events", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(records) }))
    expect(r.status, r.text).toBe(202)
    expect(r.body).toEqual({ accepted: seeds.length, duplicates: 0, counted: 0, ignored: 0, rejected: [], rejectedCount: 0 })
  })
  afterAll(async () => {
    if (d !== undefined) expect((await d.stop("SIGTERM")).code).toBe(0)
  })

  it("stored every seed as classified, with its own occurredAt", async () => {
    const r = await get(d, "/v1/events?since=30d&limit=1000")
    expect(r.status).toBe(200)
    expect(Object.keys(r.body).sort()).toEqual(["events", "nextCursor"])
    const byId = new Map<string, any>(r.body.events.map((e: any) => [e.id, e]))
    expect([...byId.keys()].sort()).toEqual(seeds.map((s) => s.id).sort())
    for (const s of seeds) {
      expect(byId.get(s.id), s.id).toMatchObject({
        occurredAt: occurredAt.get(s.id),
        category: s.category,
        rateLimitKind: s.kind,
        status: s.status,
        model: s.model,
        service: s.service,
        source: "webhook"
      })
    }
  })

  it("lists events newest first and filters by category, rateLimitKind, model, service, status", async () => {
    expect(await listIds(d, "since=30d")).toEqual(select(() => true))
    expect(await listIds(d, "since=30d&category=rate_limit")).toEqual(select((s) => s.category === "rate_limit"))
    expect(await listIds(d, "since=30d&rateLimitKind=TPM")).toEqual(["rl-tpm-1", "rl-old"])
    expect(await listIds(d, `since=30d&model=${encodeURIComponent(M3)}`)).toEqual(["mnf-1"])
    expect(await listIds(d, `since=30d&model=${encodeURIComponent(M2)}`)).toEqual(select((s) => s.model === M2))
    expect(await listIds(d, "since=30d&service=batch-worker")).toEqual(["se-2", "se-1", "ak-1"])
    expect(await listIds(d, "since=30d&status=503")).toEqual(["ov-1", "ov-2"])
    expect(await listIds(d, `since=30d&category=overload&model=${encodeURIComponent(M2)}&service=chat-api`)).toEqual(["ov-1", "ov-2"])
    expect(await listIds(d, "since=30d&category=permission")).toEqual([])
    expect(await listIds(d, "since=30d&model=no-such-model")).toEqual([])
  })

  it("windows events with since/until as durations and as ISO instants", async () => {
    expect(await listIds(d, "since=24h")).toEqual(select((s) => s.hoursAgo < 24))
    expect(await listIds(d, "since=90m")).toEqual(["rl-tpm-1"])
    expect(await listIds(d, "since=7d&until=24h")).toEqual(select((s) => s.hoursAgo > 24 && s.hoursAgo < 168))
    const since = new Date(seededAt - 55 * HOUR).toISOString()
    const until = new Date(seededAt - 25 * HOUR).toISOString()
    expect(await listIds(d, `since=${since}&until=${until}`)).toEqual(["rl-tpd-1", "mnf-1", "q-1"])
    expect(await listIds(d, `since=${since}&until=${until}&category=quota`)).toEqual(["q-1"])
  })

  it("pages with limit + nextCursor: every event exactly once, newest first, then nextCursor null", async () => {
    const all = select(() => true)
    const { ids, pages } = await walk(d, "since=30d&limit=3")
    expect(ids).toEqual(all)
    expect(pages.map((p) => p.length)).toEqual([3, 3, 3, 2])

    const one = await walk(d, "since=30d&category=rate_limit&limit=1")
    expect(one.ids).toEqual(select((s) => s.category === "rate_limit"))
    expect(one.pages.every((p) => p.length === 1)).toBe(true)

    const exact = await walk(d, `since=30d&limit=${all.length}`)
    expect(exact.ids).toEqual(all)
  })

  it("answers 400 with an error code to a bad limit, status, since, until, category, rateLimitKind or cursor", async () => {
    for (const q of [
      "limit=0", "limit=-1", "limit=abc", "limit=1001", "limit=2.5",
      "status=abc", "status=42", "status=600",
      "since=yesterday", "since=24x", "until=soon",
      "category=nope", "category=RATE_LIMIT", "rateLimitKind=XYZ",
      "cursor=garbage", "cursor=%25%25%25", `cursor=${Buffer.from('["not", "a", "cursor"]').toString("base64url")}`,
      `since=${new Date(seededAt).toISOString()}&until=${new Date(seededAt - HOUR).toISOString()}`
    ]) {
      const r = await get(d, `/v1/events?${q}`)
      expect(r.status, `${q}: ${r.text}`).toBe(400)
      expect(r.headers.get("content-type"), q).toMatch(/^application\/json/)
      expect(r.body, q).toEqual({ error: { code: expect.any(String), message: expect.stringMatching(/\S/) } })
      expect(r.body.error.code, q).toBe("bad_query")
    }
    for (const q of ["since=yesterday", "until=soon", "since=7d&until=30d", "since=0m"]) {
      const r = await get(d, `/v1/report?${q}`)
      expect(r.status, `report ${q}: ${r.text}`).toBe(400)
      expect(r.body.error.code).toBe("bad_query")
    }
    // one rule for every windowed endpoint: an empty window is refused by all alike
    for (const route of ["/v1/events", "/v1/report"]) {
      const r = await get(d, `${route}?since=0m`)
      expect(r.status, `${route}: ${r.text}`).toBe(400)
      expect(r.body.error.message).toMatch(/since must be before until/)
    }
    // and a cursor forged by hand or taken from another list is refused by every list
    const other = (await get(d, "/v1/incidents?limit=1")).body.nextCursor as string
    expect(other).toEqual(expect.any(String))
    for (const route of ["/v1/events", "/v1/incidents", "/v1/alerts", "/v1/tickets", "/v1/notifications", "/v1/silences"]) {
      for (const cursor of ["12345", Buffer.from('["events",[1,"x"],"forged!!"]').toString("base64url"), route === "/v1/incidents" ? "x" : other]) {
        const r = await get(d, `${route}?cursor=${encodeURIComponent(cursor)}`)
        expect(r.status, `${route} cursor=${cursor}: ${r.text}`).toBe(400)
      }
    }
  })

  it("GET /v1/report has exactly the keys of the contract and the numbers of the last 24h by default", async () => {
    const r = await get(d, "/v1/report")
    expect(r.status).toBe(200)
    const rep = r.body
    expect(Object.keys(rep).sort()).toEqual(REPORT_KEYS)
    expect(Object.keys(rep.ingest).sort()).toEqual(["failures", "ignored", "linesRead", "sources"])
    expect(Object.keys(rep.alerts)).toEqual(["firing"])
    expect(Object.keys(rep.tickets)).toEqual(["open"])
    expect(Date.parse(rep.window.until) - Date.parse(rep.window.since)).toBe(24 * HOUR)
    expect(Math.abs(Date.parse(rep.window.until) - Date.now())).toBeLessThan(60_000)

    const want = expectedReport(24)
    expect(want.total).toBe(6)
    expect(rep.total).toBe(want.total)
    expect(nonZero(rep.byCategory)).toEqual(want.byCategory)
    expect(nonZero(rep.byRateLimitKind)).toEqual(want.byRateLimitKind)
    expect(nonZero(rep.byStatus)).toEqual(want.byStatus)
    expect([...rep.byModel].sort((a: any, b: any) => a.model.localeCompare(b.model)).map((m: any) => ({ model: m.model, total: m.total, byCategory: nonZero(m.byCategory) }))).toEqual(want.byModel)
    // no successful call was seen: every call counted is one of the failures
    expect({ calls: rep.calls, failureRatio: rep.failureRatio }).toEqual({ calls: want.total, failureRatio: 1 })
    for (const m of rep.byModel) expect({ calls: m.calls, failureRatio: m.failureRatio }).toEqual({ calls: m.total, failureRatio: 1 })

    // top: one row per fingerprint, the counts add up, the repeated server error counts 2
    for (const t of rep.top) {
      for (const k of ["fingerprint", "category", "rateLimitKind", "status", "code", "message", "model", "count", "firstSeen", "lastSeen", "action"]) expect(t).toHaveProperty(k)
    }
    expect(rep.top.reduce((n: number, t: any) => n + t.count, 0)).toBe(want.total)
    const se = rep.top.filter((t: any) => t.category === "server_error")
    expect(se).toHaveLength(1)
    expect(se[0]).toMatchObject({ count: 2, status: 500, code: 50500, model: M2, firstSeen: occurredAt.get("se-1"), lastSeen: occurredAt.get("se-2") })

    // timeline: ascending buckets inside the window whose counts add up to the total
    const starts = rep.timeline.map((b: any) => Date.parse(b.start))
    expect(starts).toEqual([...starts].sort((a, b) => a - b))
    expect(starts[0]).toBeLessThanOrEqual(Date.parse(rep.window.since))
    const inTimeline = rep.timeline.reduce((n: number, b: any) => n + Object.values(b.byCategory as Record<string, number>).reduce((x, y) => x + y, 0), 0)
    expect(inTimeline).toBe(want.total)

    // every record posted was a failure, stored once; nothing is tailed
    expect(rep.ingest).toEqual({ linesRead: seeds.length, ignored: 0, failures: seeds.length, sources: [] })

    // alerts and tickets: the same numbers as their own endpoints
    const firing = await d.json<{ alerts: unknown[] }>("/v1/alerts?state=firing")
    const open = await d.json<{ tickets: unknown[] }>("/v1/tickets?state=open")
    expect(rep.alerts.firing).toBe(firing.alerts.length)
    expect(rep.tickets.open).toBe(open.tickets.length)
  })

  it("GET /v1/report?since=7d, and filtered by service and by model", async () => {
    const week = (await get(d, "/v1/report?since=7d")).body
    const want = expectedReport(168)
    expect(want.total).toBe(10)
    expect(week.total).toBe(want.total)
    expect(nonZero(week.byCategory)).toEqual(want.byCategory)
    expect(nonZero(week.byRateLimitKind)).toEqual(want.byRateLimitKind)
    expect(nonZero(week.byStatus)).toEqual(want.byStatus)
    expect(Date.parse(week.window.until) - Date.parse(week.window.since)).toBe(168 * HOUR)

    const chat = (await get(d, "/v1/report?service=chat-api")).body
    const wantChat = expectedReport(24, (s) => s.service === "chat-api")
    expect(chat.total).toBe(wantChat.total)
    expect(nonZero(chat.byCategory)).toEqual(wantChat.byCategory)

    const m2 = (await get(d, `/v1/report?since=7d&model=${encodeURIComponent(M2)}`)).body
    const wantM2 = expectedReport(168, (s) => s.model === M2)
    expect(m2.total).toBe(wantM2.total)
    expect(nonZero(m2.byCategory)).toEqual(wantM2.byCategory)
    expect(m2.byModel.map((m: any) => m.model)).toEqual([M2])

    const since = new Date(seededAt - 55 * HOUR).toISOString()
    const until = new Date(seededAt - 25 * HOUR).toISOString()
    const iso = (await get(d, `/v1/report?since=${since}&until=${until}`)).body
    expect(iso.window).toMatchObject({ since, until })
    expect(nonZero(iso.byCategory)).toEqual({ rate_limit: 1, model_not_found: 1, quota: 1 })

    const empty = (await get(d, "/v1/report?service=nobody")).body
    expect(empty.total).toBe(0)
    expect(empty.top).toEqual([])
  })

  it("GET /v1/incidents groups by fingerprint: two events differing only in request id are one incident of count 2", async () => {
    const events = new Map<string, any>((await d.json<{ events: any[] }>("/v1/events?since=30d&limit=1000")).events.map((e) => [e.id, e]))
    const fp = events.get("se-1").fingerprint
    expect(events.get("se-2").fingerprint).toBe(fp)
    expect(events.get("rl-tpm-1").fingerprint).toBe(events.get("rl-old").fingerprint)
    expect(events.get("rl-tpm-1").fingerprint).not.toBe(events.get("rl-rpm-1").fingerprint)
    expect(events.get("ov-1").fingerprint).not.toBe(fp)

    const r = await get(d, "/v1/incidents")
    expect(r.status).toBe(200)
    const incidents: any[] = r.body.incidents
    expect(r.body.nextCursor).toBeNull()
    // pages of two reach every incident exactly once, in the same order
    const paged: string[] = []
    let cursor: string | null = null
    for (let i = 0; i < 50; i++) {
      const page: Answer = await get(d, `/v1/incidents?limit=2${cursor === null ? "" : `&cursor=${cursor}`}`)
      expect(page.status, page.text).toBe(200)
      paged.push(...page.body.incidents.map((x: any) => x.fingerprint))
      cursor = page.body.nextCursor
      if (cursor === null) break
    }
    expect(paged).toEqual(incidents.map((x) => x.fingerprint))
    const distinct = new Set(seeds.map((s) => events.get(s.id).fingerprint))
    expect(incidents.map((i) => i.fingerprint).sort()).toEqual([...distinct].sort())
    expect(incidents.reduce((n, i) => n + i.count, 0)).toBe(seeds.length)

    const se = incidents.find((i) => i.fingerprint === fp)
    expect(se).toMatchObject({ count: 2, category: "server_error", firstSeen: occurredAt.get("se-1"), lastSeen: occurredAt.get("se-2") })
    expect(se).toHaveProperty("kind", null)
    expect(se.action).toMatch(/\S/)
    expect(se.sample).toContain("Request id")
    const tpm = incidents.find((i) => i.fingerprint === events.get("rl-tpm-1").fingerprint)
    expect(tpm).toMatchObject({ count: 2, category: "rate_limit", kind: "TPM", firstSeen: occurredAt.get("rl-old"), lastSeen: occurredAt.get("rl-tpm-1") })
  })

  it("tells the provider of a failure, filters events by it and counts it in the report and /metrics", async () => {
    const body = [
      { id: "pv-1", raw: "anthropic.RateLimitError: Error code: 429 - {'type': 'error', 'error': {'type': 'rate_limit_error', 'message': 'Number of request tokens has exceeded your per-minute rate limit'}}" },
      { id: "pv-2", raw: 'POST https://api.openai.com/v1/chat/completions -> 401 {"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}' }
    ]
    const posted = await d.fetch("/v1/events", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })
    expect(posted.status).toBe(202)
    const anthropic = await waitFor("the anthropic event", async () => {
      const r = await d.json<{ events: any[] }>("/v1/events?provider=anthropic")
      return r.events.length === 1 ? r.events : undefined
    }, 30_000)
    expect(anthropic[0]).toMatchObject({ id: "pv-1", provider: "anthropic", category: "rate_limit", rateLimitKind: "TPM" })
    expect((await d.json<{ events: any[] }>("/v1/events?provider=openai")).events.map((e) => e.id)).toEqual(["pv-2"])
    const rep = await d.json<{ byProvider: Record<string, number> }>("/v1/report")
    expect(rep.byProvider).toMatchObject({ anthropic: 1, openai: 1 })
    const metrics = await (await d.fetch("/metrics")).text()
    expect(metrics).toMatch(/faultline_failures_total\{[^}]*provider="anthropic"[^}]*\} 1/)
  })

  it("serves /openapi.json, a JSON 404 for unknown routes, /healthz and /readyz", async () => {
    const doc = await get(d, "/openapi.json")
    expect(doc.status).toBe(200)
    expect(doc.headers.get("content-type")).toMatch(/json/)
    expect(doc.body.openapi).toMatch(/^3\.\d+\.\d+$/)
    expect(Object.keys(doc.body.paths["/v1/events"]).sort()).toEqual(expect.arrayContaining(["get", "post"]))

    for (const p of ["/v1/nope", "/v2/events", "/v1/events/extra/segments"]) {
      const r = await get(d, p)
      expect(r.status, p).toBe(404)
      expect(r.body, p).toEqual({ error: { code: "not_found", message: expect.any(String) } })
    }
    expect((await get(d, "/healthz")).status).toBe(200)
    expect((await get(d, "/readyz")).status).toBe(200)
  })
})

// ---------------------------------------------------------------------------------------------

describe("http.apiToken guards every route but /healthz, /readyz and /metrics", () => {
  const token = "api-5e0c7a1f93b24d68"
  let d: Daemon
  beforeAll(async () => {
    d = await startDaemon({ config: { http: { apiToken: token } } })
  })
  afterAll(async () => {
    if (d !== undefined) expect((await d.stop("SIGTERM")).code).toBe(0)
  })

  const guarded = ["/v1/events", "/v1/report", "/v1/incidents", "/v1/alerts", "/v1/tickets", "/v1/notifications", "/v1/silences", "/openapi.json", "/v1/events?category=rate_limit"]

  it("answers 401 without a token and with a wrong one, 200 with Authorization: Bearer <token>", async () => {
    for (const p of guarded) {
      const none = await get(d, p)
      expect(none.status, p).toBe(401)
      expect(none.body, p).toEqual({ error: { code: "unauthorized", message: expect.any(String) } })
      const wrong = await get(d, p, { token: `${token}x` })
      expect(wrong.status, p).toBe(401)
      const ok = await get(d, p, { token })
      expect(ok.status, `${p}: ${ok.text}`).toBe(200)
      expect(ok.headers.get("content-type"), p).toMatch(/json/)
    }
    const post = await answer(await d.fetch("/v1/events", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ status: 500, message: "x" }) }))
    expect(post.status).toBe(401)
    const posted = await answer(await d.fetch("/v1/events", { method: "POST", token, headers: { "content-type": "application/json" }, body: JSON.stringify({ status: 500, message: "x" }) }))
    expect(posted.status).toBe(202)
  })

  it("leaves /healthz, /readyz and /metrics open", async () => {
    for (const p of ["/healthz", "/readyz", "/metrics"]) {
      const r = await get(d, p)
      expect(r.status, p).toBe(200)
    }
    expect((await get(d, "/metrics")).text).toMatch(/^faultline_/m)
  })

  it("asks a browser for Basic auth on GET / and takes the token as the password of any user", async () => {
    const none = await get(d, "/")
    expect(none.status).toBe(401)
    expect(none.headers.get("www-authenticate")).toBe('Basic realm="faultline"')

    const basic = (user: string, pass: string) => ({ headers: { authorization: `Basic ${Buffer.from(`${user}:${pass}`).toString("base64")}` } })
    for (const user of ["alice", "oncall", ""]) {
      const ok = await get(d, "/", basic(user, token))
      expect(ok.status, user).toBe(200)
      expect(ok.headers.get("content-type")).toMatch(/^text\/html/)
      expect(ok.text).toMatch(/<html/i)
    }
    const wrong = await get(d, "/", basic("alice", "not-the-token"))
    expect(wrong.status).toBe(401)
    expect(wrong.headers.get("www-authenticate")).toBe('Basic realm="faultline"')

    const bearer = await get(d, "/", { token })
    expect(bearer.status).toBe(200)
    expect(bearer.headers.get("content-type")).toMatch(/^text\/html/)

    // Basic is for the page only
    const api = await get(d, "/v1/events", basic("alice", token))
    expect(api.status).toBe(401)
  })
})

// ---------------------------------------------------------------------------------------------

describe("serve refuses a bad start-up with exit 2 and one line naming the problem", () => {
  let dir: string
  beforeAll(() => {
    dir = tempDir("faultline-refuse-")
  })

  const serveWith = async (config: string, env: Record<string, string> = {}) => {
    const file = path.join(dir, `config-${Math.random().toString(36).slice(2)}.json`)
    fs.writeFileSync(file, config)
    return runBounded(["serve", "--config", file], { cwd: dir, env })
  }
  const db = () => ({ path: path.join(dir, "data/faultline.db") })

  it("refuses a non-loopback host without http.apiToken", async () => {
    const port = await freePort()
    const r = await serveWith(JSON.stringify({ http: { host: "0.0.0.0", port }, database: db(), tail: [] }))
    expectRefusal(r, /http\.apiToken/)
    oneLine(r.stderr)
  })

  it("refuses wrongly typed config fields, naming the field", async () => {
    for (const [config, field] of [
      [{ http: { port: "abc" } }, /http\.port/],
      [{ http: { port: 70000 } }, /http\.port/],
      [{ tail: [{ path: 3 }] }, /tail\[0\]\.path/],
      [{ receivers: [{ name: "pager", type: "carrier-pigeon", url: "http://127.0.0.1:9/hook" }] }, /receivers\[0\]\.type/],
      [{ database: { path: "" } }, /database\.path/]
    ] as const) {
      const r = await serveWith(JSON.stringify({ database: db(), ...config }))
      expectRefusal(r, field)
      oneLine(r.stderr)
    }
  })

  it("refuses a config file that is not JSON (exit 2, names the file)", async () => {
    const r = await serveWith("http:\n  port: 8787\n")
    expectRefusal(r, /not valid JSON/)
    expect(r.stderr).toMatch(/config-[a-z0-9]+\.json/)
  })

  // CONTRACT section 2: "Errors go to stderr as one readable line" — even though the JSON
  // parser's own message quotes the file's text, newlines included.
  it("prints the not-JSON refusal of a YAML file on one line", async () => {
    const r = await serveWith("http:\n  port: 8787\n")
    expect(r.code).toBe(2)
    oneLine(r.stderr)
  })

  it("refuses a config file that does not exist, naming it", async () => {
    const missing = path.join(dir, "nowhere", "faultline.json")
    const r = await runBounded(["serve", "--config", missing], { cwd: dir })
    expectRefusal(r, new RegExp(missing.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")))
    oneLine(r.stderr)
  })

  it("refuses FAULTLINE_PORT=abc, with a config file and with the embedded defaults", async () => {
    const withFile = await serveWith(JSON.stringify({ database: db(), tail: [] }), { FAULTLINE_PORT: "abc" })
    expectRefusal(withFile, /FAULTLINE_PORT|http\.port/)
    oneLine(withFile.stderr)
    const cwd = tempDir("faultline-envonly-")
    const envOnly = await runBounded(["serve"], { cwd, env: { FAULTLINE_PORT: "abc" } })
    expectRefusal(envOnly, /FAULTLINE_PORT|http\.port/)
    oneLine(envOnly.stderr)
  })
})

// ---------------------------------------------------------------------------------------------

describe("environment overrides and SIGTERM", () => {
  /** `faultline serve` with no config file at all: only the environment and the embedded defaults. */
  const serveEnvOnly = async (cwd: string, env: Record<string, string>, port: number) => {
    const proc: ChildProcess = spawn(process.execPath, [cliPath, "serve"], { cwd, env: cleanEnv(env), stdio: ["ignore", "pipe", "pipe"] })
    let out = ""
    let err = ""
    proc.stdout!.on("data", (c) => (out += c))
    proc.stderr!.on("data", (c) => (err += c))
    const exited = new Promise<number | null>((resolve) => proc.on("exit", (code) => resolve(code)))
    const stop = async () => {
      if (proc.exitCode !== null) return { code: proc.exitCode, ms: 0 }
      const t0 = Date.now()
      proc.kill("SIGTERM")
      const code = await exited
      return { code, ms: Date.now() - t0 }
    }
    try {
      await waitFor(`faultline (env only) to be ready on port ${port}`, async () => {
        if (proc.exitCode !== null) throw new Error(`exited with ${proc.exitCode}: ${err}`)
        const r = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => null)
        return r?.status === 200
      }, 30_000)
    } catch (e) {
      await stop()
      throw e
    }
    return { proc, stop, stdout: () => out, stderr: () => err }
  }

  let running: Array<() => Promise<unknown>> = []
  afterAll(async () => {
    for (const stop of running) await stop()
    running = []
  })

  it("FAULTLINE_PORT, FAULTLINE_DB, FAULTLINE_TAIL and FAULTLINE_API_TOKEN take effect without a config file", async () => {
    const cwd = tempDir("faultline-env-")
    const port = await freePort()
    const token = "env-token-81c4e2a7"
    const dbPath = path.join(cwd, "state", "nested", "events.db")
    const logDir = path.join(cwd, "applogs")
    const otherGlob = path.join(cwd, "other", "*.txt")
    fs.mkdirSync(logDir)
    const daemon = await serveEnvOnly(
      cwd,
      { FAULTLINE_PORT: String(port), FAULTLINE_DB: dbPath, FAULTLINE_TAIL: `${path.join(logDir, "*.log")},${otherGlob}`, FAULTLINE_API_TOKEN: token },
      port
    )
    running.push(daemon.stop)
    const base = `http://127.0.0.1:${port}`

    // the port: it listens where told; the database: created at FAULTLINE_DB, not ./data
    expect(fs.existsSync(dbPath)).toBe(true)
    expect(fs.existsSync(path.join(cwd, "data"))).toBe(false)
    await waitFor("the start-up line", () => daemon.stdout().includes("listening"))
    const banner = daemon.stdout().split("\n").find((l) => l.includes("listening"))!
    expect(banner).toContain(`127.0.0.1:${port}`)
    expect(banner).toContain(path.join(logDir, "*.log"))
    expect(banner).toContain(otherGlob)
    expect(banner).toContain(dbPath)

    // the token guards the API
    expect((await fetch(`${base}/v1/events`)).status).toBe(401)
    const authed = await fetch(`${base}/v1/events`, { headers: { authorization: `Bearer ${token}` } })
    expect(authed.status).toBe(200)
    await authed.body?.cancel()

    // the tail globs: a failure written to a new file under FAULTLINE_TAIL is stored. Appending
    // keeps going until one is seen, so it does not matter when the watcher picked the file up.
    const logFile = path.join(logDir, "app.log")
    let n = 0
    const events = await waitFor("a tailed failure to be stored", async () => {
      n++
      fs.appendFileSync(logFile, `${new Date().toISOString()} ERROR chat-api - Error code: 503 - {'code': 50508, 'message': 'System is too busy now. Please try again later.', 'data': None} attempt=${n}\n`)
      const r = await fetch(`${base}/v1/events?since=1h`, { headers: { authorization: `Bearer ${token}` } })
      const body = (await r.json()) as { events: Array<{ source: string; category: string }> }
      const mine = body.events.filter((e) => e.source === `file:${logFile}`)
      return mine.length > 0 ? mine : null
    }, 20_000, 250)
    expect(events[0]!.category).toBe("overload")

    // SIGTERM: exits 0 within 5 s
    const { code, ms } = await daemon.stop()
    expect(code).toBe(0)
    expect(ms).toBeLessThan(5_000)
  })

  it("a running daemon that just ingested exits 0 within 5 s of SIGTERM", async () => {
    const d = await startDaemon()
    running.push(async () => (d.proc.exitCode === null ? d.stop() : null))
    const r = await d.fetch("/v1/events", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify([{ status: 500, message: "Internal server error" }, { status: 429, message: "Rate limit reached for requests per min (RPM)" }])
    })
    expect(r.status).toBe(202)
    await r.body?.cancel()
    const { code, ms } = await d.stop("SIGTERM")
    expect(code).toBe(0)
    expect(ms).toBeLessThan(5_000)
  })
})
