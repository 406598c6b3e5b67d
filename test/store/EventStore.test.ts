import { it as effectIt } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { categories, rateLimitKinds, type Category, type FailureEvent, type RateLimitKind } from "../../src/classify/Event.js"
import type { SourceCheckpoint } from "../../src/sources/Batch.js"
import { Database } from "../../src/store/Database.js"
import {
  EventStoreService,
  StoreQueryError,
  decodeEventCursor,
  encodeEventCursor,
  type EventStore,
  type ListEventsQuery
} from "../../src/store/EventStore.js"
import { DAY, HOUR, MINUTE, batch, ev, openStore, prng, tempDir } from "./fixtures.js"

const T0 = Date.parse("2026-11-20T00:00:00.000Z")

const checkpoint = (over: Partial<SourceCheckpoint> = {}): SourceCheckpoint => ({
  key: "dev:1:ino:42",
  path: "/var/log/app.log",
  offset: 1000,
  line: 11,
  size: 5000,
  headHash: "deadbeef",
  headLength: 64,
  ...over
})

const thrown = (f: () => unknown): unknown => {
  try {
    f()
  } catch (e) {
    return e
  }
  throw new Error("expected an exception")
}

describe("EventStore.commit", () => {
  it("stores every field and reads it back exactly (code int vs string, null booleans)", () => {
    const { store, db } = openStore()
    const events = [
      ev({ at: T0, code: 50603 }),
      ev({ at: T0 + 1, code: "50603", stream: null, line: null, requestId: null }),
      ev({ at: T0 + 2, code: "invalid_api_key", category: "auth_key", status: 401, bodyNotJson: true, retryable: false, severity: "critical" }),
      ev({ at: T0 + 3, code: null, category: "transport", status: null, model: null, service: null, message: null, endpoint: null, stream: true }),
      ev({ at: T0 + 4, code: 7.5, message: "数值 带 中文 'quotes' \"and\" \n newlines" })
    ]
    const r = store.commit([batch(events)])
    expect(r.duplicates).toBe(0)
    expect(r.inserted).toEqual(events)
    for (const e of events) expect(store.getEvent(e.id)).toEqual(e)
    expect(typeof store.getEvent(events[0]!.id)!.code).toBe("number")
    expect(typeof store.getEvent(events[1]!.id)!.code).toBe("string")
    expect(db.prepare("SELECT typeof(code) FROM events WHERE id = ?").pluck().get(events[0]!.id)).toBe("integer")
    expect(store.getEvent("evt_nope")).toBeNull()
  })

  it("normalises timestamps to ISO with milliseconds", () => {
    const { store } = openStore()
    const e = { ...ev({ at: T0 }), occurredAt: "2026-11-20T08:00:00+08:00", ingestedAt: "2026-11-20T00:00:01Z" }
    store.commit([batch([e])])
    expect(store.getEvent(e.id)).toMatchObject({ occurredAt: "2026-11-20T00:00:00.000Z", ingestedAt: "2026-11-20T00:00:01.000Z" })
  })

  it("counts duplicate ids (across commits and inside one batch) without storing or aggregating them", () => {
    const { store } = openStore()
    const a = ev({ at: T0 })
    const b = ev({ at: T0 + 1000 })
    expect(store.commit([batch([a, b])]).duplicates).toBe(0)
    const again = store.commit([batch([a, { ...b }, ev({ at: T0 + 2000, id: "evt_x" }), ev({ at: T0 + 3000, id: "evt_x" })])])
    expect(again.duplicates).toBe(3)
    expect(again.inserted.map((e) => e.id)).toEqual(["evt_x"])
    expect(store.listEvents({ limit: 100 }).events).toHaveLength(3)
    const report = store.report({ since: T0 - HOUR, until: T0 + HOUR })
    expect(report.total).toBe(3)
    expect(report.ingest.failures).toBe(3)
    expect(report.ingest.linesRead).toBe(6)
    expect(store.incidents({ now: T0 }).incidents[0]!.count).toBe(3)
  })

  it("commits events, counters and checkpoint together, and nothing when any part fails", () => {
    const { store } = openStore()
    const cp1 = checkpoint()
    store.commit([batch([ev({ at: T0 })], { checkpoint: cp1, linesRead: 10, ignored: 9 })])
    expect(store.checkpoint(cp1.key)).toEqual(cp1)

    const good = ev({ at: T0 + 1 })
    const broken = { ...ev({ at: T0 + 2 }), sample: null } as unknown as FailureEvent
    const cp2 = checkpoint({ offset: 2000, line: 21 })
    expect(() =>
      store.commit([batch([good], { checkpoint: cp2, linesRead: 10 }), batch([broken], { source: "webhook", linesRead: 1 })])
    ).toThrow(/NOT NULL/)
    expect(store.getEvent(good.id)).toBeNull()
    expect(store.checkpoint(cp1.key)).toEqual(cp1)
    const totals = store.ingestTotals()
    expect(totals.sources).toEqual([{ source: "file:/var/log/app.log", linesRead: 10, ignored: 9, failures: 1 }])
    expect(store.report({ since: T0 - HOUR, until: T0 + HOUR }).total).toBe(1)

    // the store still works after a rolled-back commit, including new series
    const fresh = ev({ at: T0 + 3, model: "brand/new-model" })
    store.commit([batch([good, fresh], { checkpoint: cp2 })])
    expect(store.checkpoint(cp1.key)).toEqual(cp2)
    expect(store.report({ since: T0 - HOUR, until: T0 + HOUR }).byModel.map((m) => m.model)).toContain("brand/new-model")
  })

  it("keeps several checkpoints, lists and forgets them", () => {
    const { store } = openStore()
    const a = checkpoint({ key: "a", path: "/logs/a.log" })
    const b = checkpoint({ key: "b", path: "/logs/b.log", offset: 7, size: 7 })
    store.commit([batch([], { checkpoint: a }), batch([], { checkpoint: b })])
    expect(store.checkpoints()).toEqual([a, b])
    store.forgetCheckpoint("a")
    expect(store.checkpoint("a")).toBeNull()
    expect(store.checkpoints()).toEqual([b])
    expect(store.commit([])).toEqual({ inserted: [], duplicates: 0 })
  })

  it("a second store on the same file sees series written by the first (replay beside the daemon)", () => {
    const { store, file } = openStore()
    const other = openStore(file).store
    other.commit([batch([ev({ at: T0, model: "m-from-replay" })])])
    const r = store.report({ since: T0 - HOUR, until: T0 + HOUR })
    expect(r.byModel).toEqual([{ model: "m-from-replay", total: 1, byCategory: { rate_limit: 1 }, calls: 1, failureRatio: 1 }])
    store.commit([batch([ev({ at: T0 + 1, model: "m-from-replay" })])])
    expect(other.report({ since: T0 - HOUR, until: T0 + HOUR }).total).toBe(2)
  })
})

// ---------------------------------------------------------------------------------------------
// a random but reproducible data set, and brute force over it

const MODELS = ["Qwen/Qwen2.5-7B-Instruct", "deepseek-ai/DeepSeek-V3", "THUDM/glm-4-9b-chat", null] as const
const SERVICES = ["chat-api", "tts", null] as const
const SHAPES: ReadonlyArray<{ category: Category; status: number | null; kinds?: ReadonlyArray<RateLimitKind> }> = [
  { category: "rate_limit", status: 429, kinds: ["TPM", "RPM", "TPD", "unknown"] },
  { category: "overload", status: 503 },
  { category: "overload", status: 504 },
  { category: "server_error", status: 500 },
  { category: "transport", status: null },
  { category: "transport", status: 502 },
  { category: "model_not_found", status: 400 },
  { category: "quota", status: 402 },
  { category: "quota", status: 429 },
  { category: "unknown", status: 404 }
]

const dataset = (n: number, start: number, span: number, seed: number): FailureEvent[] => {
  const rnd = prng(seed)
  const pick = <T>(xs: ReadonlyArray<T>): T => xs[Math.floor(rnd() * xs.length)]!
  const out: FailureEvent[] = []
  for (let i = 0; i < n; i++) {
    const shape = pick(SHAPES)
    // clustered times, some exactly on minute/hour boundaries
    const at =
      rnd() < 0.1 ? start + Math.floor(rnd() * (span / MINUTE)) * MINUTE : start + Math.floor(rnd() * rnd() * span)
    out.push(
      ev({
        at,
        category: shape.category,
        status: shape.status,
        rateLimitKind: shape.kinds ? pick(shape.kinds) : null,
        code: pick([50603, "50603", null, 20012]),
        model: pick(MODELS),
        service: pick(SERVICES),
        provider: pick(["siliconflow", "openai", null]),
        message: `failure ${pick(["a", "b", "c"])} after ${Math.floor(rnd() * 100)} ms`
      })
    )
  }
  return out
}

interface Brute {
  total: number
  byCategory: Record<string, number>
  byRateLimitKind: Record<string, number>
  byStatus: Record<string, number>
  byProvider: Record<string, number>
  calls: number
  failureRatio: number | null
  byModel: Array<{ model: string | null; total: number; byCategory: Record<string, number>; calls: number; failureRatio: number | null }>
  timeline: Array<{ start: string; byCategory: Record<string, number>; calls: number }>
  top: Map<string, { count: number; firstSeen: string; lastSeen: string }>
}

/** Successful calls, as the tailer counts them: one minute, service, model, provider each. */
interface Success {
  readonly minute: number
  readonly service: string | null
  readonly model: string | null
  readonly provider: string | null
  readonly ok: number
}

const successes = (n: number, start: number, span: number, seed: number): Success[] => {
  const rnd = prng(seed)
  const pick = <T>(xs: ReadonlyArray<T>): T => xs[Math.floor(rnd() * xs.length)]!
  const out: Success[] = []
  for (let i = 0; i < n; i++) {
    const at = start + Math.floor(rnd() * span)
    out.push({ minute: at - (at % MINUTE), service: pick(SERVICES), model: pick([...MODELS, "healthy/model-without-failures"]), provider: pick(["siliconflow", "openai", null]), ok: 1 + Math.floor(rnd() * 20) })
  }
  return out
}

const brute = (events: ReadonlyArray<FailureEvent>, since: number, until: number, step: number, service?: string, model?: string, ok: ReadonlyArray<Success> = []): Brute => {
  const inWindow = events.filter((e) => {
    const t = Date.parse(e.occurredAt)
    return t >= since && t < until && (service === undefined || e.service === service) && (model === undefined || e.model === model)
  })
  const byCategory: Record<string, number> = Object.fromEntries(categories.map((c) => [c, 0]))
  const byRateLimitKind: Record<string, number> = Object.fromEntries(rateLimitKinds.map((k) => [k, 0]))
  const byStatus: Record<string, number> = {}
  const byProvider: Record<string, number> = {}
  const models = new Map<string | null, { total: number; byCategory: Record<string, number> }>()
  const first = Math.floor(since / step) * step
  const timeline: Array<{ start: string; byCategory: Record<string, number>; calls: number }> = []
  for (let t = first; t < until; t += step) {
    timeline.push({ start: new Date(t).toISOString(), byCategory: Object.fromEntries(categories.map((c) => [c, 0])), calls: 0 })
  }
  // calls: every failure and success of the minutes the window touches
  const m0 = since - (since % MINUTE)
  const callsByModel = new Map<string | null, number>()
  let calls = 0
  const call = (minute: number, s: string | null, m: string | null, n: number) => {
    if (minute < m0 || minute >= until || (service !== undefined && s !== service) || (model !== undefined && m !== model)) return
    calls += n
    callsByModel.set(m, (callsByModel.get(m) ?? 0) + n)
    timeline[Math.max(0, Math.floor((minute - first) / step))]!.calls += n
  }
  for (const e of events) {
    const t = Date.parse(e.occurredAt)
    call(t - (t % MINUTE), e.service, e.model, 1)
  }
  for (const c of ok) call(c.minute, c.service, c.model, c.ok)
  const top = new Map<string, { count: number; first: number; last: number }>()
  for (const e of inWindow) {
    const t = Date.parse(e.occurredAt)
    byCategory[e.category]!++
    if (e.rateLimitKind !== null) byRateLimitKind[e.rateLimitKind]!++
    const sk = e.status === null ? "none" : String(e.status)
    byStatus[sk] = (byStatus[sk] ?? 0) + 1
    if (e.provider !== null) byProvider[e.provider] = (byProvider[e.provider] ?? 0) + 1
    const m = models.get(e.model) ?? { total: 0, byCategory: {} }
    m.total++
    m.byCategory[e.category] = (m.byCategory[e.category] ?? 0) + 1
    models.set(e.model, m)
    timeline[Math.floor((t - first) / step)]!.byCategory[e.category]!++
    const f = top.get(e.fingerprint) ?? { count: 0, first: t, last: t }
    f.count++
    f.first = Math.min(f.first, t)
    f.last = Math.max(f.last, t)
    top.set(e.fingerprint, f)
  }
  for (const m of callsByModel.keys()) if (!models.has(m)) models.set(m, { total: 0, byCategory: {} })
  const ratio = (f: number, c: number) => (c > 0 ? f / c : null)
  return {
    total: inWindow.length,
    byCategory,
    byRateLimitKind,
    byStatus,
    byProvider,
    calls,
    failureRatio: ratio(inWindow.length, calls),
    byModel: [...models]
      .map(([model, m]) => ({ model, ...m, calls: callsByModel.get(model) ?? 0, failureRatio: ratio(m.total, callsByModel.get(model) ?? 0) }))
      .sort((a, b) => b.total - a.total || b.calls - a.calls || (a.model ?? "").localeCompare(b.model ?? "")),
    timeline,
    top: new Map(
      [...top].map(([fp, f]) => [fp, { count: f.count, firstSeen: new Date(f.first).toISOString(), lastSeen: new Date(f.last).toISOString() }])
    )
  }
}

const expectReportMatches = (
  store: EventStore,
  events: ReadonlyArray<FailureEvent>,
  since: number,
  until: number,
  step: string,
  stepMs: number,
  service?: string,
  model?: string,
  ok: ReadonlyArray<Success> = []
) => {
  const r = store.report({ since, until, service, model })
  const b = brute(events, since, until, stepMs, service, model, ok)
  const label = `${new Date(since).toISOString()}..${new Date(until).toISOString()} ${service ?? "*"} ${model ?? "*"}`
  expect(r.window, label).toEqual({ since: new Date(since).toISOString(), until: new Date(until).toISOString(), step })
  expect(r.total, label).toBe(b.total)
  expect(r.byCategory, label).toEqual(b.byCategory)
  expect(r.byRateLimitKind, label).toEqual(b.byRateLimitKind)
  expect(r.byStatus, label).toEqual(b.byStatus)
  expect(r.byProvider, label).toEqual(b.byProvider)
  expect({ calls: r.calls, failureRatio: r.failureRatio }, label).toEqual({ calls: b.calls, failureRatio: b.failureRatio })
  expect(r.byModel, label).toEqual(b.byModel)
  expect(r.timeline, label).toEqual(b.timeline)
  // top: the 10 largest counts, each with exact count and first/last seen inside the window
  const counts = [...b.top.values()].map((t) => t.count).sort((x, y) => y - x).slice(0, 10)
  expect(r.top.map((t) => t.count), label).toEqual(counts)
  for (const t of r.top) {
    expect({ count: t.count, firstSeen: t.firstSeen, lastSeen: t.lastSeen }, label).toEqual(b.top.get(t.fingerprint))
    const sample = events.find((e) => e.fingerprint === t.fingerprint)!
    expect(t, label).toMatchObject({ category: sample.category, rateLimitKind: sample.rateLimitKind, status: sample.status, code: sample.code, model: sample.model, action: sample.action })
  }
  return r
}

describe("EventStore.report", () => {
  const { store } = openStore()
  const start = T0
  const span = 3 * DAY
  const events = dataset(6000, start, span, 42)
  // commit in shuffled chunks, so incident first/last seen arrive out of order
  const shuffled = [...events].sort((a, b) => (a.id.charCodeAt(a.id.length - 1) % 7) - (b.id.charCodeAt(b.id.length - 1) % 7))
  for (let i = 0; i < shuffled.length; i += 700) store.commit([batch(shuffled.slice(i, i + 700))])
  // successful calls, counted beside the failures (some in batches of their own)
  const ok = successes(4000, start, span, 7)
  for (let i = 0; i < ok.length; i += 500) {
    const calls = ok.slice(i, i + 500).map((c) => ({ ...c, failed: 0 }))
    store.commit([{ ...batch([]), calls }])
  }

  const windows: Array<[string, number, number, string, number]> = [
    ["45s inside one minute", start + 10 * HOUR + 5_000, start + 10 * HOUR + 50_000, "1m", MINUTE],
    ["30m unaligned", start + 3 * HOUR + 12_345, start + 3 * HOUR + 30 * MINUTE + 12_345, "1m", MINUTE],
    ["exactly 1h aligned", start + 5 * HOUR, start + 6 * HOUR, "1m", MINUTE],
    ["3h unaligned", start + 7_777, start + 3 * HOUR + 7_777, "5m", 5 * MINUTE],
    ["6h minute aligned", start + 2 * HOUR + 3 * MINUTE, start + 8 * HOUR + 3 * MINUTE, "5m", 5 * MINUTE],
    ["20h unaligned", start + 90 * MINUTE + 999, start + 21 * HOUR + 59_001, "1h", HOUR],
    ["2d hour aligned", start + HOUR, start + 49 * HOUR, "1h", HOUR],
    ["2d + 1ms", start + HOUR, start + 49 * HOUR + 1, "6h", 6 * HOUR],
    ["24h aligned to hours", start + DAY, start + 2 * DAY, "1h", HOUR],
    ["5d around the data", start - DAY - 1, start + 4 * DAY + 1, "6h", 6 * HOUR],
    ["30d", start - 20 * DAY, start + 10 * DAY, "1d", DAY],
    ["2h with no data", start - 5 * HOUR, start - 3 * HOUR, "5m", 5 * MINUTE]
  ]
  for (const [name, since, until, step, stepMs] of windows) {
    it(`equals brute force: ${name}`, () => {
      expectReportMatches(store, events, since, until, step, stepMs, undefined, undefined, ok)
    })
  }

  it("equals brute force with service and model filters", () => {
    const since = start + 123_456
    const until = start + 30 * HOUR + 654_321
    expectReportMatches(store, events, since, until, "1h", HOUR, "chat-api", undefined, ok)
    expectReportMatches(store, events, since, until, "1h", HOUR, undefined, "deepseek-ai/DeepSeek-V3", ok)
    expectReportMatches(store, events, since, until, "1h", HOUR, "tts", "THUDM/glm-4-9b-chat", ok)
    expectReportMatches(store, events, since, start + 40 * MINUTE, "1m", MINUTE, "chat-api", "Qwen/Qwen2.5-7B-Instruct", ok)
    expect(store.report({ since, until, service: "no-such-service" }).total).toBe(0)
  })

  it("has the contract's shape", () => {
    const r = store.report({ since: start, until: start + DAY })
    expect(Object.keys(r).sort()).toEqual(
      ["alerts", "byCategory", "byModel", "calls", "failureRatio", "byProvider", "byRateLimitKind", "byStatus", "ingest", "tickets", "timeline", "top", "total", "window"].sort()
    )
    expect(r.alerts).toEqual({ firing: 0 })
    expect(r.tickets).toEqual({ open: 0 })
    expect(r.timeline).toHaveLength(24)
    expect(r.top).toHaveLength(10)
    expect(r.byStatus).toHaveProperty("none")
    expect(r.byModel.some((m) => m.model === null)).toBe(true)
    expect(r.ingest).toMatchObject({ linesRead: 6000, ignored: 0, failures: 6000, sources: [] })
    expect(JSON.parse(JSON.stringify(r))).toEqual(r)
  })

  it("rejects an empty or inverted window", () => {
    const e = thrown(() => store.report({ since: start, until: start }))
    expect(e).toBeInstanceOf(StoreQueryError)
    expect((e as StoreQueryError).reason).toBe("bad_window")
  })

  it("reports ingest sources with their lag", () => {
    const s = openStore().store
    s.commit([batch([], { checkpoint: checkpoint({ key: "k1", path: "/logs/b.log", offset: 100, size: 350 }), linesRead: 4, ignored: 4 })])
    s.commit([batch([], { checkpoint: checkpoint({ key: "k2", path: "/logs/a.log", offset: 10, size: 10 }), source: "file:/logs/a.log", linesRead: 1, ignored: 1 })])
    expect(s.report({ since: T0, until: T0 + HOUR }).ingest).toEqual({
      linesRead: 5,
      ignored: 5,
      failures: 0,
      sources: [
        { source: "file:/logs/a.log", offset: 10, lagBytes: 0 },
        { source: "file:/logs/b.log", offset: 100, lagBytes: 250 }
      ]
    })
  })

  // -------------------------------------------------------------------------------------------

  describe("listEvents", () => {
    const newestFirst = (a: FailureEvent, b: FailureEvent) =>
      Date.parse(b.occurredAt) - Date.parse(a.occurredAt) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)

    const walk = (q: Omit<ListEventsQuery, "cursor">): string[] => {
      const ids: string[] = []
      let cursor: string | undefined
      for (let pages = 0; pages < 10_000; pages++) {
        const page = store.listEvents({ ...q, cursor })
        expect(page.events.length).toBeLessThanOrEqual(q.limit)
        ids.push(...page.events.map((e) => e.id))
        if (page.nextCursor === null) return ids
        cursor = page.nextCursor
      }
      throw new Error("too many pages")
    }

    const cases: Array<[string, Omit<ListEventsQuery, "cursor" | "limit">, (e: FailureEvent) => boolean]> = [
      ["no filter", {}, () => true],
      ["category", { category: "overload" }, (e) => e.category === "overload"],
      ["rateLimitKind", { rateLimitKind: "TPD" }, (e) => e.rateLimitKind === "TPD"],
      ["model + service", { model: "deepseek-ai/DeepSeek-V3", service: "tts" }, (e) => e.model === "deepseek-ai/DeepSeek-V3" && e.service === "tts"],
      ["status of one category", { status: 404 }, (e) => e.status === 404],
      ["status of two categories", { status: 429 }, (e) => e.status === 429],
      ["status + model", { status: 500, model: "THUDM/glm-4-9b-chat" }, (e) => e.status === 500 && e.model === "THUDM/glm-4-9b-chat"],
      [
        "since/until + category",
        { since: start + HOUR, until: start + 20 * HOUR, category: "transport" },
        (e) => e.category === "transport" && Date.parse(e.occurredAt) >= start + HOUR && Date.parse(e.occurredAt) < start + 20 * HOUR
      ]
    ]
    for (const [name, filter, pred] of cases) {
      it(`walks every matching event exactly once, newest first: ${name}`, () => {
        const expected = events.filter(pred).sort(newestFirst).map((e) => e.id)
        expect(expected.length).toBeGreaterThan(0)
        expect(walk({ ...filter, limit: 37 })).toEqual(expected)
      })
    }

    it("answers an empty page for values never stored", () => {
      expect(store.listEvents({ limit: 10, status: 418 })).toEqual({ events: [], nextCursor: null })
      expect(store.listEvents({ limit: 10, model: "nope" })).toEqual({ events: [], nextCursor: null })
      expect(store.listEvents({ limit: 10, category: "overload", rateLimitKind: "TPM" })).toEqual({ events: [], nextCursor: null })
    })

    it("pages through events that share one timestamp", () => {
      const s = openStore().store
      const same = Array.from({ length: 25 }, () => ev({ at: T0 }))
      s.commit([batch(same)])
      const seen: string[] = []
      let cursor: string | undefined
      do {
        const page = s.listEvents({ limit: 4, cursor })
        seen.push(...page.events.map((e) => e.id))
        cursor = page.nextCursor ?? undefined
      } while (cursor !== undefined)
      expect(seen).toEqual(same.map((e) => e.id).reverse())
    })

    it("returns full events and no cursor on the last page", () => {
      const page = store.listEvents({ limit: 1_000_000, category: "quota" })
      expect(page.events.length).toBe(Math.min(1000, events.filter((e) => e.category === "quota").length))
      expect(page.events[0]).toEqual(events.filter((e) => e.category === "quota").sort(newestFirst)[0])
    })

    it("rejects a cursor it did not make, and a bad limit", async () => {
      const bad = [
        "not base64!",
        Buffer.from("{oops").toString("base64url"),
        Buffer.from(JSON.stringify(["x", 1])).toString("base64url"),
        Buffer.from(JSON.stringify([1.5, "a"])).toString("base64url"),
        ""
      ]
      for (const cursor of bad) {
        const e = thrown(() => store.listEvents({ limit: 10, cursor }))
        expect(e).toBeInstanceOf(StoreQueryError)
        expect((e as StoreQueryError).reason).toBe("bad_cursor")
      }
      expect((thrown(() => store.listEvents({ limit: 0 })) as StoreQueryError).reason).toBe("bad_limit")
      expect(decodeEventCursor(encodeEventCursor(T0, "evt_é"))).toEqual([T0, "evt_é"])
      // a cursor of another list, or a well-formed position without the check, is refused too
      const { encodeCursor } = await import("../../src/store/cursor.js")
      for (const cursor of [encodeCursor("incidents", [T0, "evt_1"]), Buffer.from(JSON.stringify(["events", [T0, "evt_1"], "xxxxxxxx"])).toString("base64url")]) {
        expect((thrown(() => store.listEvents({ limit: 10, cursor })) as StoreQueryError).reason).toBe("bad_cursor")
      }
    })
  })
})

describe("EventStore.incidents", () => {
  it("pages with limit + nextCursor: every incident exactly once, most recently seen first", () => {
    const { store } = openStore()
    const events = Array.from({ length: 23 }, (_, i) => ev({ at: T0 + (i % 7) * MINUTE, message: `distinct failure ${"x".repeat(i)}`, model: `m-${i}` }))
    store.commit([batch(events)])
    const all = store.incidents({ limit: 1000, now: T0 }).incidents.map((i) => i.fingerprint)
    expect(all).toHaveLength(23)
    const seen: string[] = []
    let cursor: string | undefined
    let pages = 0
    do {
      const page = store.incidents({ limit: 5, cursor, now: T0 })
      seen.push(...page.incidents.map((i) => i.fingerprint))
      cursor = page.nextCursor ?? undefined
      pages++
    } while (cursor !== undefined && pages < 20)
    expect(seen).toEqual(all)
    expect(pages).toBe(5)
    expect(() => store.incidents({ limit: 5, cursor: "forged" })).toThrow(StoreQueryError)
  })

  it("groups by fingerprint with all-time count, first/last seen and the latest sample", () => {
    const { store } = openStore()
    const late = ev({ at: T0 + 50 * MINUTE, message: "boom 2", sample: "latest sample" })
    const early = ev({ at: T0 + 10 * MINUTE, message: "boom 1", sample: "early sample" })
    const old = ev({ at: T0 - 5 * HOUR, category: "server_error", status: 500, code: 50500, message: "internal" })
    expect(late.fingerprint).toBe(early.fingerprint)
    store.commit([batch([late])])
    store.commit([batch([early, old])]) // an older occurrence arrives later: sample stays the latest
    const now = T0 + HOUR
    const all = store.incidents({ now }).incidents
    expect(all).toHaveLength(2)
    expect(all[0]).toEqual({
      fingerprint: late.fingerprint,
      state: "active",
      category: "rate_limit",
      rateLimitKind: "TPM",
      kind: "TPM",
      severity: "warning",
      retryable: true,
      status: 429,
      code: 50603,
      model: late.model,
      service: "chat-api",
      message: "boom 2",
      action: late.action,
      count: 2,
      firstSeen: early.occurredAt,
      lastSeen: late.occurredAt,
      sample: "latest sample",
      sampleEventId: late.id
    })
    expect(all[1]).toMatchObject({ fingerprint: old.fingerprint, state: "quiet", count: 1, code: 50500 })
    expect(store.incidents({ state: "active", now }).incidents.map((i) => i.fingerprint)).toEqual([late.fingerprint])
    expect(store.incidents({ state: "quiet", now }).incidents.map((i) => i.fingerprint)).toEqual([old.fingerprint])
    expect(store.incidents({ since: T0, now }).incidents).toHaveLength(1)
    expect(store.incidents({ limit: 1, now })).toEqual({ incidents: [all[0]], nextCursor: expect.any(String) })
  })
})

describe("EventStore metrics and diagnosis helpers", () => {
  it("ingestTotals: per-source lines and failures by labels", () => {
    const { store } = openStore()
    store.commit([
      batch([ev({ at: T0 }), ev({ at: T0 + 1, message: "other text" }), ev({ at: T0 + 2, category: "overload", status: 503 })], { linesRead: 50, ignored: 47 }),
      batch([ev({ at: T0 + 3, category: "transport", status: null, service: null })], { source: "webhook", linesRead: 1 })
    ])
    store.commit([batch([], { checkpoint: checkpoint({ offset: 40, size: 100 }) })])
    const t = store.ingestTotals()
    expect(t.sources).toEqual([
      { source: "file:/var/log/app.log", linesRead: 50, ignored: 47, failures: 3 },
      { source: "webhook", linesRead: 1, ignored: 0, failures: 1 }
    ])
    expect(t.failures).toEqual([
      { category: "overload", rateLimitKind: null, status: 503, model: "Qwen/Qwen2.5-7B-Instruct", service: "chat-api", count: 1 },
      { category: "rate_limit", rateLimitKind: "TPM", status: 429, model: "Qwen/Qwen2.5-7B-Instruct", service: "chat-api", count: 2 },
      { category: "transport", rateLimitKind: null, status: null, model: "Qwen/Qwen2.5-7B-Instruct", service: null, count: 1 }
    ])
    expect(t.lag).toEqual([{ source: "file:/var/log/app.log", key: "dev:1:ino:42", offset: 40, size: 100, lagBytes: 60 }])
  })

  it("modelsSeen and fingerprintModels answer the diagnosis questions", () => {
    const { store } = openStore()
    const now = T0 + 2 * HOUR
    const a = ev({ at: now - 10 * MINUTE, category: "server_error", status: 500, code: 50500, model: "org/model-a", message: "model-a failed after 12 ms" })
    const b = ev({ at: now - 5 * MINUTE, category: "server_error", status: 500, code: 50500, model: "org/model-b", message: "model-b failed after 999 ms" })
    const c = ev({ at: now - 3 * HOUR, category: "server_error", status: 500, code: 50500, model: "org/model-c", message: "model-c failed after 1 ms" })
    const d = ev({ at: now - 1 * MINUTE, category: "server_error", status: 500, code: 50501, model: "org/model-d", message: "model-d failed after 1 ms" })
    const e = ev({ at: now - 2 * MINUTE, category: "server_error", status: 500, code: 50500, model: "org/model-e", service: "tts", message: "model-e failed after 1 ms" })
    const f = ev({ at: now - 4 * MINUTE, model: "org/model-a", service: null })
    store.commit([batch([a, b, c, d, e, f, ev({ at: now - 20 * MINUTE, model: "org/model-a" })])])
    const since = now - HOUR
    expect(store.fingerprintModels(a.fingerprint, since)).toEqual(["org/model-b", "org/model-a"])
    expect(store.fingerprintModels("0000000000000000", since)).toEqual([])
    expect(store.modelsSeen("chat-api", since)).toEqual([
      { model: "org/model-d", failures: 1, lastSeen: d.occurredAt },
      { model: "org/model-b", failures: 1, lastSeen: b.occurredAt },
      { model: "org/model-a", failures: 2, lastSeen: a.occurredAt }
    ])
    expect(store.modelsSeen(null, since)).toEqual([{ model: "org/model-a", failures: 1, lastSeen: f.occurredAt }])
  })
})

describe("EventStore.prune", () => {
  it("deletes old events in chunks and keeps incidents, counters and hour buckets", () => {
    const { store, db } = openStore()
    const now = T0 + 40 * DAY
    const old = Array.from({ length: 23 }, (_, i) => ev({ at: T0 + i * MINUTE + 30_000 }))
    const recent = Array.from({ length: 5 }, (_, i) => ev({ at: now - i * HOUR }))
    store.commit([batch([...old, ...recent], { linesRead: 100, ignored: 72 })])
    const incidentsBefore = store.incidents({ now }).incidents
    const totalsBefore = store.ingestTotals()

    expect(store.prune(now, 30, 4)).toBe(23)
    expect(store.prune(now, 30, 4)).toBe(0)
    expect(store.listEvents({ limit: 100 }).events.map((e) => e.id)).toEqual(recent.map((e) => e.id))
    expect(store.incidents({ now }).incidents).toEqual(incidentsBefore)
    expect(store.ingestTotals()).toEqual(totalsBefore)
    expect(db.prepare("SELECT count(*) FROM buckets_minute WHERE t < ?").pluck().get(now - 30 * DAY)).toBe(0)
    // whole hours of the pruned period are still reported from the hour buckets
    expect(store.report({ since: T0, until: T0 + 7 * HOUR }).total).toBe(23)
    expect(store.report({ since: now - DAY, until: now + 1 }).total).toBe(5)

    // hour and day buckets live 400 days; incidents and counters for good
    const later = now + 401 * DAY
    expect(store.prune(later, 30)).toBe(5)
    for (const table of ["buckets_minute", "buckets_hour", "buckets_day", "timeline_minute", "timeline_hour"]) {
      expect(db.prepare(`SELECT count(*) FROM ${table}`).pluck().get(), table).toBe(0)
    }
    expect(store.incidents({ now }).incidents).toEqual(incidentsBefore)
    expect(store.ingestTotals()).toEqual(totalsBefore)
  })
})

describe("EventStoreService", () => {
  effectIt.effect("is built from the Database layer", () =>
    Effect.gen(function* () {
      const store = yield* EventStoreService
      const e = ev({ at: T0 })
      expect(store.commit([batch([e])]).inserted).toHaveLength(1)
      expect(store.getEvent(e.id)).toEqual(e)
    }).pipe(
      Effect.provide(EventStoreService.layer.pipe(Layer.provide(Database.layer(path.join(tempDir(), "svc.db")))))
    )
  )
})
