/**
 * Thin event rows (migrations/007_thin_events.sql): a database written by the previous release
 * (migrations 001-006, events stored as its store did: one wide row each, its incident and series)
 * is moved at start-up, and every event reads back as the same object, before and after the
 * change of layout; events written after it read back as written. Samples stored as deltas come
 * back byte for byte.
 */
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import type { FailureEvent } from "../../src/classify/Event.js"
import { loadMigrations, openDatabase } from "../../src/store/Database.js"
import { EventStore } from "../../src/store/EventStore.js"
import { decodeDelta, encodeDelta } from "../../src/store/sampleDelta.js"
import { batch, ev, HOUR, openStore, tempDir } from "./fixtures.js"

const T0 = Date.UTC(2026, 10, 21, 10)

/** Events of every shape the contract allows, some sharing a series with differing per-event fields. */
const variety = (): FailureEvent[] => [
  ev({ at: T0, code: 50603, message: "TPM limit reached: 1200 used" }),
  ev({ at: T0 + 1, code: 50603, message: "TPM limit reached: 1300 used" }), // same series, another message
  ev({ at: T0 + 2, code: "50603", stream: null, line: null, requestId: null, endpoint: null }),
  ev({ at: T0 + 3, code: "invalid_api_key", category: "auth_key", status: 401, bodyNotJson: true, retryable: false, severity: "critical" }),
  ev({ at: T0 + 4, code: null, category: "transport", status: null, model: null, service: null, message: null, endpoint: null, stream: true }),
  ev({ at: T0 + 5, code: 7.5, message: "数值 带 中文 'quotes' \"and\" \n newlines 😀", sample: "{\"e\":\"😀 ünïcode\"}" }),
  ev({ at: T0 + 6, provider: "anthropic", source: "webhook", line: null }),
  ev({ at: T0 + 6, provider: "anthropic", source: "stdin", line: null, action: "another action, same series" })
]

/** Writes events as the previous release's store did: the wide row, its incident and its series. */
const writeOldWay = (db: ReturnType<typeof openDatabase>, events: ReadonlyArray<FailureEvent>): void => {
  const insert = db.prepare(
    `INSERT INTO events (id, occurred_at, ingested_at, source, line, service, status, code, message, model, request_id, endpoint,
       stream, category, rate_limit_kind, severity, retryable, action, fingerprint, body_not_json, sample, provider)
     VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`
  )
  const incident = db.prepare(
    `INSERT INTO incidents (fingerprint, category, rate_limit_kind, severity, retryable, status, code, model, service, message, action,
       count, first_seen, last_seen, sample, sample_event_id) VALUES (?,?,?,?,?,?,?,?,?,?,?,1,?,?,?,?)
     ON CONFLICT (fingerprint) DO UPDATE SET count = count + 1, last_seen = max(last_seen, excluded.last_seen)
     RETURNING id`
  )
  const series = db.prepare(
    `INSERT INTO series (key, incident, category, rate_limit_kind, status, model, service, provider) VALUES (?,?,?,?,?,?,?,?)
     ON CONFLICT (key) DO NOTHING`
  )
  const code = (c: FailureEvent["code"]) => (typeof c === "number" && Number.isSafeInteger(c) ? BigInt(c) : c)
  db.transaction(() => {
    for (const e of events) {
      const at = Date.parse(e.occurredAt)
      insert.run(e.id, at, Date.parse(e.ingestedAt), e.source, e.line, e.service, e.status, code(e.code), e.message, e.model, e.requestId,
        e.endpoint, e.stream === null ? null : e.stream ? 1 : 0, e.category, e.rateLimitKind, e.severity, e.retryable ? 1 : 0, e.action,
        e.fingerprint, e.bodyNotJson ? 1 : 0, e.sample, e.provider)
      const { id } = incident.get(e.fingerprint, e.category, e.rateLimitKind, e.severity, e.retryable ? 1 : 0, e.status, code(e.code), e.model,
        e.service, e.message, e.action, at, at, e.sample, e.id) as { id: number }
      const labels = [e.category, e.rateLimitKind, e.status, e.model, e.service]
      const key = e.fingerprint + JSON.stringify(e.provider === null ? labels : [...labels, e.provider])
      series.run(key, id, e.category, e.rateLimitKind, e.status, e.model, e.service, e.provider)
    }
  })()
}

const newestFirst = (a: FailureEvent, b: FailureEvent) => Date.parse(b.occurredAt) - Date.parse(a.occurredAt) || (a.id < b.id ? 1 : -1)

describe("thin event rows: moving a database of the previous release", () => {
  it("reads every event back as the same object before and after the change of layout", () => {
    const file = path.join(tempDir(), "faultline.db")
    const events = variety()
    const before = openDatabase(file, loadMigrations().filter((m) => m.version < 7))
    writeOldWay(before, events)
    // what the previous layout's table held, column by column
    const oldRows = before.prepare("SELECT * FROM events ORDER BY seq").all()
    before.close()

    const db = openDatabase(file)
    const store = new EventStore(db)
    for (const e of events) expect(store.getEvent(e.id)).toEqual(e)
    expect(store.listEvents({ limit: 100 }).events).toEqual([...events].sort(newestFirst))
    expect(store.listEvents({ limit: 100, provider: "anthropic" }).events.map((e) => e.id)).toEqual([events[7]!.id, events[6]!.id])
    // the `events` view answers the old columns (samples moved as they were: plain)
    expect(db.prepare("SELECT * FROM events ORDER BY seq").all()).toEqual(oldRows)

    // an event of the same kind written after the change: the same object back, in the moved series
    const seriesBefore = db.prepare("SELECT count(*) FROM series").pluck().get()
    const after = { ...ev({ at: T0 + HOUR, code: 50603, message: "TPM limit reached: 1400 used" }), sample: `${events[0]!.sample} ` }
    store.commit([batch([after])])
    expect(store.getEvent(after.id)).toEqual(after)
    expect(db.prepare("SELECT count(*) FROM series").pluck().get()).toBe(seriesBefore)
    expect(store.getEvent(events[0]!.id)).toEqual(events[0])
    db.close()
  })
})

describe("thin event rows: the new layout", () => {
  it("stores repeated samples as deltas and reads each event's own sample back exactly", () => {
    const { store, db } = openStore()
    const events = Array.from({ length: 300 }, (_, i) => {
      const requestId = `req-${i}-${(i * 7919).toString(16)}`
      const e = ev({ at: T0 + i * 1000, model: `m-${i % 3}`, requestId })
      return { ...e, sample: `2026-11-21 10:${String(i % 60).padStart(2, "0")}:00,123 ERROR request_id=${requestId} HTTP 503 {"code":50508,"message":"System is too busy now."}` }
    })
    store.commit([batch(events.slice(0, 150))])
    store.commit([batch(events.slice(150))])
    for (const e of events) expect(store.getEvent(e.id)).toEqual(e)
    const stored = db.prepare("SELECT avg(delta) AS deltas, avg(length(sample)) AS len FROM event_rows").get() as { deltas: number; len: number }
    expect(stored.deltas).toBe(1)
    expect(stored.len).toBeLessThan(events[0]!.sample.length / 3)
    // request ids are kept as where they are in the stored sample; the events view reads them too
    expect(db.prepare("SELECT count(*) FROM event_rows WHERE typeof(request_id) = 'integer'").pluck().get()).toBe(300)
    const view = db.prepare("SELECT id, request_id AS requestId, ingested_at AS ingestedAt FROM events ORDER BY seq").all()
    expect(view).toEqual(events.map((e) => ({ id: e.id, requestId: e.requestId, ingestedAt: Date.parse(e.ingestedAt) })))
    // a rolled-back first commit of a series leaves no half-known series, variant or source behind
    const broken = { ...ev({ at: T0, model: "m-new", source: "file:/other.log" }), sample: null } as unknown as FailureEvent
    expect(() => store.commit([batch([broken])])).toThrow(/NOT NULL/)
    const fresh = ev({ at: T0, model: "m-new", source: "file:/other.log" })
    store.commit([batch([fresh])])
    expect(store.getEvent(fresh.id)).toEqual(fresh)
  })

  it("pages a filter over several series through shared milliseconds: every event once, by (occurredAt, id) desc", () => {
    const { store } = openStore()
    const events = Array.from({ length: 240 }, (_, i) => ev({ at: T0 + (i % 13) * 1000, model: `m-${i % 4}`, service: `s-${i % 3}` }))
    store.commit([batch(events)])
    for (const [filter, pred] of [
      [{ service: "s-1" }, (e: FailureEvent) => e.service === "s-1"],
      [{ category: "rate_limit" as const, since: T0 + 2000, until: T0 + 11_000 }, (e: FailureEvent) => Date.parse(e.occurredAt) >= T0 + 2000 && Date.parse(e.occurredAt) < T0 + 11_000]
    ] as const) {
      const seen: string[] = []
      let cursor: string | undefined
      do {
        const page = store.listEvents({ ...filter, limit: 7, cursor })
        seen.push(...page.events.map((e) => e.id))
        cursor = page.nextCursor ?? undefined
      } while (cursor !== undefined)
      expect(seen).toEqual(events.filter(pred).sort(newestFirst).map((e) => e.id))
    }
  })

  it("delta codec: round trips, never splits a surrogate pair, declines when not shorter", () => {
    const ref = "2026-11-21T10:00:00Z 😀 request_id=abc-123 HTTP 429 {\"message\":\"rate limited\"}"
    const cases = [
      ref,
      ref.replace("abc-123", "xyz-98765"),
      ref.replace("😀", "🙂"),
      "😀" + ref.slice(2) + "😀",
      ref.slice(0, 30)
    ]
    for (const t of cases) {
      const d = encodeDelta(t, ref)
      if (d === null) continue
      expect(decodeDelta(d, ref)).toBe(t)
      expect(Buffer.from(d, "utf8").toString("utf8")).toBe(d) // valid text: stored as UTF-8 without loss
    }
    expect(encodeDelta("completely different text, nothing shared", ref)).toBeNull()
    expect(encodeDelta(ref.replace("abc-123", "xyz-98765"), ref)!.length).toBeLessThan(ref.length / 3)
  })
})
