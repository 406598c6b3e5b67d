/**
 * One incident, one ticket (CONTRACT section 7, issue 18): tickets per server-error signature
 * (status, code, masked message with the model name masked out, plus `tickets.groupBy`), over
 * the real engine and a real SQLite file, time driven by TestClock; `tickets.groupBy` in the
 * config; the migration of tickets written by the previous schema.
 */
import { describe, expect, it } from "@effect/vitest"
import BetterSqlite3 from "better-sqlite3"
import { Effect, Either, TestClock } from "effect"
import { decodeConfig } from "../../src/config/Config.js"
import { loadMigrations, openDatabase } from "../../src/store/Database.js"
import { maskModelName, signatureMessage, ticketSignature } from "../../src/ticket/signature.js"
import { config, event, harness, outboxRows, storeEvents, T0, tempDb } from "./helpers.js"

const MIN = 60_000
const now = TestClock.currentTimeMillis

const MODELS = ["deepseek-ai/DeepSeek-V3", "Qwen/Qwen2.5-72B-Instruct", "THUDM/glm-4-9b-chat", "meta-llama/Llama-3.3-70B-Instruct"] as const
const SERVICES = ["chat-api", "batch-worker"] as const

const ticketConfig = (tickets: Record<string, unknown> = {}) =>
  config({
    receivers: [
      { name: "hook", type: "webhook", url: "http://127.0.0.1:9/hook" },
      { name: "tickets", type: "webhook", url: "http://127.0.0.1:9/tickets" }
    ],
    defaultReceivers: ["hook"],
    tickets: { receivers: ["tickets"], ...tickets }
  })

let n = 0
/** One upstream 500 as a model and a service see it: its own request id, the same wording. */
const upstream500 = (model: string, service: string, at: number, message = (id: string) => `Unknown error, request id ${id}`) => {
  const id = `req_${(++n).toString(36)}${n * 7919}`
  return event({ category: "server_error", model, service, at, status: 500, code: 50500, message: message(id), requestId: id })
}

/** Four models × two services × one 500: eight events, a second apart, oldest first. */
const storm = (message?: (id: string) => string) =>
  MODELS.flatMap((m, i) => SERVICES.map((s, j) => upstream500(m, s, T0 - 10_000 + (i * SERVICES.length + j) * 1000, message)))

const ticketRows = (db: BetterSqlite3.Database) => outboxRows(db).filter((r) => r.kind === "ticket")

describe("server-error signature", () => {
  it("masks request ids, numbers, quoted values and the model name; keeps status and code apart", () => {
    const a = upstream500(MODELS[0], "chat-api", T0)
    const b = upstream500(MODELS[1], "batch-worker", T0)
    expect(signatureMessage(a)).toBe(signatureMessage(b))
    expect(ticketSignature(a, []).fingerprint).toBe(ticketSignature(b, []).fingerprint)
    expect(ticketSignature(a, []).fingerprint).toMatch(/^[0-9a-f]{16}$/)
    // the groupBy labels split it
    expect(ticketSignature(a, ["model"]).fingerprint).not.toBe(ticketSignature(b, ["model"]).fingerprint)
    expect(ticketSignature(a, ["model"]).group).toEqual({ model: MODELS[0] })
    expect(ticketSignature(a, ["provider", "model"])).toEqual(ticketSignature(a, ["model", "provider"]))
    // status and code are part of it
    expect(ticketSignature({ ...a, code: 50501 }, []).fingerprint).not.toBe(ticketSignature(a, []).fingerprint)
    expect(ticketSignature({ ...a, status: 503 }, []).fingerprint).not.toBe(ticketSignature(a, []).fingerprint)
    // the same failure named per model
    const named = (m: string) => ({ model: m, message: `Model ${m} failed: internal error (request id req_8f2a91c3)` })
    expect(signatureMessage(named(MODELS[0]))).toBe(signatureMessage(named(MODELS[3])))
    expect(signatureMessage(named(MODELS[0]))).toBe("model <model> failed: internal error (request id <id>)")
    expect(maskModelName("Qwen2.5-72B-Instruct is down; 'Qwen/Qwen2.5-72B-Instruct' too", MODELS[1])).toBe("<model> is down; '<model>' too")
    // only whole names: another model that merely starts with it is not masked
    expect(maskModelName("gpt-4o-mini failed", "gpt-4o")).toBe("gpt-4o-mini failed")
    expect(maskModelName("llama3:8b failed, llama3 too", "llama3")).toBe("llama3:8b failed, <model> too")
    expect(maskModelName("openai/gpt-4o failed.", "gpt-4o")).toBe("openai/<model> failed.")
    expect(signatureMessage({ model: "x", message: `quota "a1" after 30s for 12 tokens` })).toBe("quota <q> after <dur> for # tokens")
  })
})

describe("tickets.groupBy in the config", () => {
  it("defaults to none; takes model, service, provider; refuses anything else naming tickets.groupBy[i]", () => {
    expect(Either.getOrThrow(decodeConfig({})).tickets).toEqual({ receivers: [], groupBy: [] })
    expect(Either.getOrThrow(decodeConfig({ tickets: { groupBy: ["provider", "service", "model"] } })).tickets.groupBy).toEqual(["provider", "service", "model"])
    const bad = decodeConfig({ tickets: { groupBy: ["model", "region"] } })
    expect(Either.isLeft(bad)).toBe(true)
    const message = Either.isLeft(bad) ? bad.left.message : ""
    expect(message).toContain("tickets.groupBy[1]")
    expect(message).toContain(`"region"`)
    expect(message).toMatch(/"model" \| "service" \| "provider"/)
    const notArray = decodeConfig({ tickets: { groupBy: "model" } })
    expect(Either.isLeft(notArray) && notArray.left.message).toContain("tickets.groupBy")
    const twice = decodeConfig({ tickets: { groupBy: ["service", "service"] } })
    expect(Either.isLeft(twice) && twice.left.message).toContain(`tickets.groupBy[1]: "service" is named twice`)
  })
})

describe("one incident, one ticket", () => {
  it.scoped("four models × two services × one 500 open one ticket listing them, sent once", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(T0)
      const { engine, db } = yield* harness(ticketConfig(), tempDb())
      const events = storm()
      storeEvents(db, events)
      // as a daemon sees them: one at a time
      for (const e of events) yield* engine.observe([e])

      const tickets = (yield* engine.listTickets({ limit: 10 })).items
      expect(tickets).toHaveLength(1)
      const t = tickets[0]!
      expect(t).toMatchObject({ state: "open", count: 8, status: 500, code: 50500, reopenedCount: 0, group: {}, eventId: events[0]!.id })
      expect(t.fingerprint).toBe(ticketSignature(events[0]!, []).fingerprint)
      expect(t.models).toHaveLength(4)
      expect(t.models.map((m) => m.model).sort()).toEqual([...MODELS].sort())
      expect(t.models.every((m) => m.count === 2)).toBe(true)
      expect(t.services).toEqual([{ service: "chat-api", count: 4 }, { service: "batch-worker", count: 4 }])
      // ties: the one seen first
      expect([t.model, t.service]).toEqual([MODELS[0], "chat-api"])
      expect(t.diagnosis.curl).toContain(`"model":"${MODELS[0]}"`)
      expect([...t.diagnosis.otherModelsAffected].sort()).toEqual(MODELS.slice(1).sort())
      expect(t.diagnosis.summary).toContain("4 models affected")
      for (const m of MODELS) expect(t.diagnosis.summary).toContain(m)
      expect(t.diagnosis.summary).toContain("services: chat-api, batch-worker")

      // one notification to the ticket receiver
      expect(ticketRows(db).map((r) => [r.receiver, r.status])).toEqual([["tickets", "open"]])
      expect(JSON.parse(ticketRows(db)[0]!.payload)).toMatchObject({ kind: "ticket", status: "open", ticketId: t.id, fingerprint: t.fingerprint })

      // the most frequent model and service take the lead; lists sorted by count
      yield* engine.observe([upstream500(MODELS[2], "batch-worker", T0 - 500), upstream500(MODELS[2], "batch-worker", T0 - 400)])
      const after = (yield* engine.listTickets({ limit: 10 })).items
      expect(after).toHaveLength(1)
      expect(after[0]).toMatchObject({ count: 10, model: MODELS[2], service: "batch-worker" })
      expect(after[0]!.models[0]).toEqual({ model: MODELS[2], count: 4 })
      expect(after[0]!.services).toEqual([{ service: "batch-worker", count: 6 }, { service: "chat-api", count: 4 }])
      expect(ticketRows(db)).toHaveLength(1)
    })
  )

  it.scoped("the same failure named per model in its message is one ticket; the whole storm in one batch is one notification", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(T0)
      const { engine, db } = yield* harness(ticketConfig(), tempDb())
      const events = MODELS.flatMap((m) =>
        SERVICES.map((s) => upstream500(m, s, T0 - 5000, (id) => `The model ${m} encountered an unknown error. Request id: ${id}`))
      )
      yield* engine.observe(events)
      const tickets = (yield* engine.listTickets({ limit: 10 })).items
      expect(tickets.map((t) => [t.count, t.models.length, t.services.length])).toEqual([[8, 4, 2]])
      // the notification shows the ticket with the batch counted
      expect(ticketRows(db)).toHaveLength(1)
      expect(JSON.parse(ticketRows(db)[0]!.payload).ticket).toMatchObject({ count: 8, models: expect.arrayContaining([{ model: MODELS[3], count: 2 }]) })
      // a different code is another incident
      yield* engine.observe([event({ ...upstream500(MODELS[0], "chat-api", T0), code: 50507 })])
      expect((yield* engine.listTickets({ limit: 10 })).items).toHaveLength(2)
    })
  )

  it.scoped("tickets.groupBy [\"model\"] opens one ticket per model", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(T0)
      const { engine, db } = yield* harness(ticketConfig({ groupBy: ["model"] }), tempDb())
      for (const e of storm()) yield* engine.observe([e])
      const tickets = (yield* engine.listTickets({ limit: 10 })).items
      expect(tickets).toHaveLength(4)
      expect(tickets.map((t) => t.model).sort()).toEqual([...MODELS].sort())
      for (const t of tickets) {
        expect(t).toMatchObject({ count: 2, group: { model: t.model }, models: [{ model: t.model, count: 2 }] })
        expect(t.services.map((s) => s.service).sort()).toEqual([...SERVICES].sort())
      }
      expect(new Set(tickets.map((t) => t.fingerprint)).size).toBe(4)
      expect(ticketRows(db).map((r) => r.status)).toEqual(["open", "open", "open", "open"])
    })
  )

  it.scoped("tickets.groupBy [\"service\"] opens one ticket per service", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(T0)
      const { engine } = yield* harness(ticketConfig({ groupBy: ["service"] }), tempDb())
      yield* engine.observe(storm())
      const tickets = (yield* engine.listTickets({ limit: 10 })).items
      expect(tickets.map((t) => [t.service, t.count, t.models.length, t.group]).sort()).toEqual([
        ["batch-worker", 4, 4, { service: "batch-worker" }],
        ["chat-api", 4, 4, { service: "chat-api" }]
      ])
    })
  )

  it.scoped("acknowledge, resolve, and reopen by a newer occurrence from any model; an older one is only counted", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(T0)
      const { engine, db } = yield* harness(ticketConfig(), tempDb())
      yield* engine.observe([upstream500(MODELS[0], "chat-api", T0 - 1000)])
      let t = (yield* engine.listTickets({ limit: 10 })).items[0]!
      expect((yield* engine.acknowledgeTicket(t.id))._tag).toBe("Changed")
      yield* TestClock.adjust(10 * MIN)
      const resolvedAt = yield* now
      const res = yield* engine.resolveTicket(t.id)
      expect(res._tag === "Changed" && res.ticket).toMatchObject({ state: "resolved", models: [{ model: MODELS[0], count: 1 }] })

      // older than the resolution, from another model: counted, listed, not reopened
      yield* engine.observe([upstream500(MODELS[1], "batch-worker", resolvedAt - MIN)])
      t = (yield* engine.listTickets({ limit: 10 })).items[0]!
      expect([t.state, t.count, t.reopenedCount, t.models.length]).toEqual(["resolved", 2, 0, 2])
      expect(ticketRows(db).map((r) => r.status)).toEqual(["open", "resolved"])

      // newer, from a third model: reopened, sent again, diagnosed on that occurrence
      const reopener = upstream500(MODELS[2], "chat-api", resolvedAt + 1000)
      storeEvents(db, [reopener])
      yield* engine.observe([reopener])
      const all = (yield* engine.listTickets({ limit: 10 })).items
      expect(all).toHaveLength(1)
      t = all[0]!
      expect([t.state, t.count, t.reopenedCount, t.eventId, t.models.length]).toEqual(["open", 3, 1, reopener.id, 3])
      expect(t.diagnosis.curl).toContain(`"model":"${MODELS[2]}"`)
      expect([...t.diagnosis.otherModelsAffected].sort()).toEqual([MODELS[0], MODELS[1]].sort())
      expect(ticketRows(db).map((r) => r.status)).toEqual(["open", "resolved", "reopened"])
      expect(JSON.parse(ticketRows(db)[2]!.payload).ticket).toMatchObject({ id: t.id, state: "open", count: 3 })
    })
  )
})

describe("migration 005: tickets written by the previous schema", () => {
  it.scoped("keeps them, with their fingerprint, and lists their own model and service with their count", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(T0)
      const file = tempDb()
      const old = loadMigrations().filter((m) => m.version <= 4)
      expect(old.map((m) => m.version)).toEqual([1, 2, 3, 4])
      const legacy = upstream500(MODELS[0], "chat-api", T0 - 3 * MIN)
      {
        const db = openDatabase(file, old)
        expect(db.prepare(`SELECT name FROM pragma_table_info('tickets')`).pluck().all()).not.toContain("event_model")
        // the way the previous code wrote a ticket: one per event fingerprint (model and service in it)
        const diagnosis = { summary: "HTTP 500, code 50500, message \"Unknown error\"", curl: "curl -i …", curlOtherModel: "curl -i …", otherModelsAffected: [], hints: ["Escalate."] }
        db.prepare(
          `INSERT INTO tickets (id, fingerprint, state, count, first_seen, last_seen, opened_at, reopened_count, model, service,
                                status, code, message, sample, event_id, diagnosis, updated_at)
           VALUES (?, ?, 'open', 5, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
        ).run("tkt_legacy", legacy.fingerprint, T0 - 3 * MIN, T0 - MIN, T0 - 3 * MIN, legacy.model, legacy.service, 500, 50500, legacy.message,
          legacy.sample, legacy.id, JSON.stringify(diagnosis), T0 - MIN)
        db.prepare(
          `INSERT INTO tickets (id, fingerprint, state, count, first_seen, last_seen, opened_at, resolved_at, reopened_count, model, service,
                                status, code, message, sample, event_id, diagnosis, updated_at)
           VALUES ('tkt_nomodel', 'aaaaaaaaaaaaaaaa', 'resolved', 2, ?, ?, ?, ?, 1, NULL, NULL, 500, '50500', 'x', 'x', 'evt_x', ?, ?)`
        ).run(T0 - 9 * MIN, T0 - 8 * MIN, T0 - 9 * MIN, T0 - 7 * MIN, JSON.stringify(diagnosis), T0 - 7 * MIN)
        db.close()
      }

      // opened with every migration, as the daemon does
      const { engine, db } = yield* harness(ticketConfig(), file)
      expect(db.prepare(`SELECT MAX(version) FROM schema_migrations`).pluck().get()).toBe(Math.max(...loadMigrations().map((m) => m.version)))
      const before = (yield* engine.listTickets({ limit: 10 })).items
      expect(before.map((t) => t.id)).toEqual(["tkt_nomodel", "tkt_legacy"])
      expect(before[1]).toMatchObject({
        id: "tkt_legacy",
        fingerprint: legacy.fingerprint,
        state: "open",
        count: 5,
        model: MODELS[0],
        service: "chat-api",
        models: [{ model: MODELS[0], count: 5 }],
        services: [{ service: "chat-api", count: 5 }],
        providers: [],
        group: {},
        eventId: legacy.id
      })
      expect(before[1]!.diagnosis).toMatchObject({ curl: "curl -i …", otherModelsAffected: [], hints: ["Escalate."] })
      expect(before[1]!.diagnosis.summary).toContain(`only ${MODELS[0]} so far`)
      expect(before[0]).toMatchObject({ id: "tkt_nomodel", state: "resolved", code: "50500", reopenedCount: 1, models: [], services: [], model: null })

      // still acknowledged and resolved through the engine
      const ack = yield* engine.acknowledgeTicket("tkt_legacy")
      expect(ack._tag === "Changed" && ack.ticket).toMatchObject({ state: "acknowledged", models: [{ model: MODELS[0], count: 5 }] })
      const res = yield* engine.resolveTicket("tkt_legacy")
      expect(res._tag === "Changed" && res.ticket).toMatchObject({ state: "resolved", fingerprint: legacy.fingerprint })
      // the resolved notification carries the legacy fingerprint: receivers resolve what they opened
      expect(ticketRows(db).map((r) => [r.status, JSON.parse(r.payload).fingerprint])).toEqual([["resolved", legacy.fingerprint]])

      // new occurrences count on the signature's ticket, whatever their model
      yield* engine.observe([upstream500(MODELS[0], "chat-api", T0), upstream500(MODELS[1], "chat-api", T0)])
      const after = (yield* engine.listTickets({ limit: 10 })).items
      expect(after).toHaveLength(3)
      expect(after[0]).toMatchObject({ fingerprint: ticketSignature(legacy, []).fingerprint, count: 2, state: "open" })
      expect(after.find((t) => t.id === "tkt_legacy")).toMatchObject({ count: 5, state: "resolved" })
    })
  )
})
