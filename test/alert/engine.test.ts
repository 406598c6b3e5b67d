/**
 * The alert engine over a real SQLite file, time driven by TestClock: firing → repeat →
 * resolved, restarts, silences, backlogs, Alertmanager refreshes, tickets by event time.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, TestClock } from "effect"
import { notificationCounts, outboxPending, ticketsOpen } from "../../src/alert/engine.js"
import { recordAttempt } from "../../src/alert/outbox.js"
import { diagnose, formatDiagnosis } from "../../src/ticket/diagnosis.js"
import { ticketSignature } from "../../src/ticket/signature.js"
import { Database } from "../../src/store/Database.js"
import { config, event, harness, outboxRows, storeEvents, T0, tempDb } from "./helpers.js"

const MIN = 60_000
const now = TestClock.currentTimeMillis

const hookConfig = (extra: Record<string, unknown> = {}) =>
  config({
    receivers: [
      { name: "hook", type: "webhook", url: "http://127.0.0.1:9/hook" },
      { name: "tickets", type: "webhook", url: "http://127.0.0.1:9/tickets" }
    ],
    defaultReceivers: ["hook"],
    tickets: { receivers: ["tickets"] },
    rules: [{ name: "overloaded", threshold: 3, window: "5m", repeatInterval: "30m", resolveAfter: "10m" }],
    ...extra
  })

const overloads = (n: number, at: number, model = "Qwen/Qwen2.5-7B-Instruct") =>
  Array.from({ length: n }, (_, i) => event({ category: "overload", at: at - i, model }))

/** Marks every pending row delivered (as the relay would after a 2xx). */
const deliverAll = (db: import("better-sqlite3").Database, at: number) => {
  for (const r of outboxRows(db).filter((r) => r.state === "pending")) {
    recordAttempt(db, { deliveryId: r.id, receiver: r.receiver, attempt: 1, at, durationMs: 1, statusCode: 200, error: null, outcome: "delivered", nextAttemptAt: at })
  }
}

describe("alert engine", () => {
  it.scoped("fires at the threshold, repeats every repeatInterval while firing, resolves after resolveAfter below threshold", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(T0)
      const { engine, db } = yield* harness(hookConfig(), tempDb())
      yield* engine.observe(overloads(2, T0))
      expect(outboxRows(db)).toHaveLength(0)
      yield* engine.observe(overloads(1, T0))
      let rows = outboxRows(db)
      expect(rows.map((r) => [r.receiver, r.kind, r.status, r.reason, r.state])).toEqual([["hook", "alert", "firing", "firing", "pending"]])
      const payload = JSON.parse(rows[0]!.payload)
      expect(payload).toMatchObject({
        kind: "alert", status: "firing", rule: "overloaded", groupKey: 'overloaded{model="Qwen/Qwen2.5-7B-Instruct"}', count: 3, threshold: 3, window: "5m",
        severity: "warning", labels: { alertname: "overloaded", category: "overload", model: "Qwen/Qwen2.5-7B-Instruct" }, startsAt: new Date(T0).toISOString(), endsAt: null
      })
      expect(payload.sampleEvents).toHaveLength(3)
      expect(payload.action).toBe(event({ category: "overload" }).action)

      // more events while firing: no new notification (dedup)
      yield* engine.observe(overloads(5, T0 + 1000))
      expect(outboxRows(db)).toHaveLength(1)

      // keep it above threshold for 30 minutes: exactly one repeat at T0 + 30m
      for (let m = 4; m <= 28; m += 4) {
        yield* TestClock.adjust(4 * MIN)
        yield* engine.observe(overloads(3, yield* now))
      }
      expect(outboxRows(db)).toHaveLength(1)
      yield* TestClock.adjust(3 * MIN) // T0 + 31m: the 5 s evaluation loop sees the repeat is due
      rows = outboxRows(db)
      expect(rows.map((r) => r.reason)).toEqual(["firing", "repeat"])
      expect(JSON.parse(rows[1]!.payload)).toMatchObject({ status: "firing", repeat: true })

      // no more events: the newest was at T0 + 28m; the count falls below threshold at T0 + 33m, resolved 10m later
      yield* TestClock.adjust(11 * MIN) // T0 + 42m
      expect(outboxRows(db).map((r) => r.reason)).toEqual(["firing", "repeat"])
      const firing = yield* engine.listAlerts({ state: "firing", limit: 10 })
      expect(firing.items).toHaveLength(1)
      yield* TestClock.adjust(1 * MIN + 5_000) // T0 + 43m05s
      rows = outboxRows(db)
      expect(rows.map((r) => r.reason)).toEqual(["firing", "repeat", "resolved"])
      const resolved = JSON.parse(rows[2]!.payload)
      expect(resolved).toMatchObject({ status: "resolved", groupKey: 'overloaded{model="Qwen/Qwen2.5-7B-Instruct"}' })
      expect(Date.parse(resolved.endsAt)).toBeGreaterThanOrEqual(T0 + 43 * MIN)
      expect(Date.parse(resolved.endsAt)).toBeLessThanOrEqual(T0 + 43 * MIN + 5_000)

      const all = yield* engine.listAlerts({ limit: 10 })
      expect(all.items.map((a) => [a.state, a.notifications.map((n) => n.reason)])).toEqual([["resolved", ["firing", "repeat", "resolved"]]])
      expect(all.nextCursor).toBeNull()
      expect(engine.gauges.alertsFiring().find((r) => r.rule === "overloaded")).toEqual({ rule: "overloaded", count: 0 })

      // the group fires again later: a new alert
      yield* TestClock.adjust(10 * MIN)
      yield* engine.observe(overloads(3, yield* now))
      expect((yield* engine.listAlerts({ limit: 10 })).items.map((a) => a.state)).toEqual(["firing", "resolved"])
    })
  )

  it.scoped("a restart neither forgets a firing alert nor pages it again", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(T0)
      const file = tempDb()
      const cfg = hookConfig()
      yield* Effect.scoped(
        Effect.gen(function* () {
          const { engine } = yield* harness(cfg, file)
          yield* engine.observe(overloads(3, T0))
        })
      )
      yield* TestClock.adjust(2 * MIN)
      const { engine, db } = yield* harness(cfg, file)
      yield* engine.evaluate
      yield* engine.observe(overloads(3, yield* now))
      yield* TestClock.adjust(1 * MIN)
      expect(outboxRows(db).map((r) => r.reason)).toEqual(["firing"])
      const alerts = yield* engine.listAlerts({ state: "firing", limit: 10 })
      expect(alerts.items.map((a) => [a.rule, a.count])).toEqual([["overloaded", 6]])
      expect(engine.gauges.alertsFiring().find((r) => r.rule === "overloaded")?.count).toBe(1)
      // it still remembers when it last notified: the repeat comes 30m after the first page
      for (let i = 0; i < 7; i++) {
        yield* TestClock.adjust(4 * MIN)
        yield* engine.observe(overloads(3, yield* now))
      }
      expect(outboxRows(db).map((r) => r.reason)).toEqual(["firing", "repeat"])
    })
  )

  it.scoped("backlog events older than the window are stored elsewhere but do not page", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(T0)
      const { engine, db } = yield* harness(hookConfig(), tempDb())
      yield* engine.observe([event({ category: "auth_key", at: T0 - 6 * MIN }), event({ category: "auth_key", at: T0 - 5 * MIN })])
      yield* engine.observe(overloads(50, T0 - 10 * MIN))
      yield* engine.evaluate
      expect(outboxRows(db)).toHaveLength(0)
      expect((yield* engine.listAlerts({ limit: 10 })).items).toHaveLength(0)
      // a recent one does (api-key-invalid: 1 in 5m), and a future timestamp counts as now
      yield* engine.observe([event({ category: "auth_key", at: T0 - 4 * MIN }), event({ category: "quota", at: T0 + 3_600_000 })])
      expect(outboxRows(db).map((r) => JSON.parse(r.payload).rule)).toEqual(["api-key-invalid", "quota-exhausted"])
      expect(JSON.parse(outboxRows(db)[0]!.payload).severity).toBe("critical")
    })
  )

  it.scoped("silences mute notifications (recorded as muted), the alert is still recorded, and the firing goes out when the silence ends", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(T0)
      const { engine, db } = yield* harness(hookConfig(), tempDb())
      const silence = yield* engine.createSilence({
        matchers: [{ label: "alertname", value: "overloaded", isRegex: false }, { label: "model", value: "Qwen/.*", isRegex: true }],
        startsAt: null, endsAt: null, durationMs: 20 * MIN, comment: "maintenance", createdBy: "test"
      })
      expect(silence.state).toBe("active")
      yield* engine.observe(overloads(3, T0))
      yield* engine.observe(overloads(3, T0, "other-model"))
      const rows = outboxRows(db)
      expect(rows.map((r) => [JSON.parse(r.payload).labels.model, r.state])).toEqual([
        ["Qwen/Qwen2.5-7B-Instruct", "muted"],
        ["other-model", "pending"]
      ])
      expect(notificationCounts(db)).toEqual([{ receiver: "hook", outcome: "muted", count: 1 }])
      expect(outboxPending(db)).toBe(1)
      const firing = yield* engine.listAlerts({ state: "firing", limit: 10 })
      expect(firing.items.map((a) => a.silencedBy)).toEqual([null, silence.id])
      // evaluations under the silence send nothing
      yield* TestClock.adjust(1 * MIN)
      yield* engine.observe(overloads(3, yield* now))
      expect(outboxRows(db)).toHaveLength(2)
      // deleting the silence ends it: the next evaluation sends the firing notification once
      const expired = yield* engine.expireSilence(silence.id)
      expect(expired?.state).toBe("expired")
      expect(yield* engine.expireSilence("sil_nope")).toBeNull()
      yield* TestClock.adjust(5_000)
      yield* TestClock.adjust(5_000)
      expect(outboxRows(db).map((r) => [r.reason, r.state])).toEqual([
        ["firing", "muted"],
        ["firing", "pending"],
        ["firing", "pending"]
      ])
      const bad = yield* Effect.either(engine.createSilence({ matchers: [{ label: "model", value: "(", isRegex: true }], startsAt: null, endsAt: null, durationMs: MIN, comment: null, createdBy: null }))
      expect(Either.isLeft(bad) && bad.left.message).toContain("invalid regular expression")
      // a pattern that backtracks catastrophically is refused, and the engine answers at once
      const exponential = yield* Effect.either(engine.createSilence({ matchers: [{ label: "model", value: "(a+)+b", isRegex: true }], startsAt: null, endsAt: null, durationMs: MIN, comment: null, createdBy: null }))
      expect(Either.isLeft(exponential) && exponential.left.message).toMatch(/matcher model: .*backtrack catastrophically/)
      expect((yield* engine.listSilences({ state: "expired", limit: 10 })).items.map((s) => s.id)).toEqual([silence.id])
    })
  )

  it.scoped("keeps Alertmanager's copy alive: re-sends a firing alert every minute, one pending at a time, history pruned", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(T0)
      const cfg = config({
        receivers: [{ name: "am", type: "alertmanager", url: "http://127.0.0.1:9093" }, { name: "hook", type: "webhook", url: "http://127.0.0.1:9/hook" }],
        defaultReceivers: ["am", "hook"]
      })
      const { engine, db } = yield* harness(cfg, tempDb())
      yield* engine.observe([event({ category: "quota", at: T0 })])
      expect(outboxRows(db).map((r) => [r.receiver, r.reason])).toEqual([["am", "firing"], ["hook", "firing"]])
      yield* TestClock.adjust(2 * MIN) // the firing rows are still pending: no refresh piles up
      expect(outboxRows(db)).toHaveLength(2)
      deliverAll(db, yield* now)
      yield* TestClock.adjust(MIN + 5_000)
      expect(outboxRows(db).map((r) => [r.receiver, r.reason, r.state])).toEqual([["am", "firing", "delivered"], ["hook", "firing", "delivered"], ["am", "refresh", "pending"]])
      deliverAll(db, yield* now)
      yield* TestClock.adjust(MIN + 5_000)
      // the delivered refresh was replaced by the new one
      expect(outboxRows(db).map((r) => [r.receiver, r.reason, r.state])).toEqual([["am", "firing", "delivered"], ["hook", "firing", "delivered"], ["am", "refresh", "pending"]])
    })
  )

  it.scoped("tickets: open at the first 500, count, acknowledge, resolve, reopen only by a newer occurrence", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(T0)
      const { engine, db } = yield* harness(hookConfig(), tempDb())
      const first = event({ category: "server_error", at: T0 - 1000, model: "deepseek-ai/DeepSeek-V3" })
      storeEvents(db, [first, event({ category: "server_error", at: T0 - 2000, model: "Qwen/Qwen2.5-72B-Instruct" }), event({ category: "rate_limit", at: T0 - 3 * 3_600_000, model: "THUDM/glm-4-9b-chat" })])
      yield* engine.observe([first])
      const ticketRows = () => outboxRows(db).filter((r) => r.kind === "ticket")
      expect(ticketRows().map((r) => [r.receiver, r.status])).toEqual([["tickets", "open"]])
      let t = (yield* engine.listTickets({ state: "open", limit: 10 })).items[0]!
      // the fingerprint is the server-error signature's (status, code, masked message), not the event's
      expect(t).toMatchObject({ state: "open", count: 1, fingerprint: ticketSignature(first, []).fingerprint, reopenedCount: 0, model: "deepseek-ai/DeepSeek-V3", status: 500, code: 50500 })
      expect(t.fingerprint).not.toBe(first.fingerprint)
      expect([t.models, t.services]).toEqual([[{ model: "deepseek-ai/DeepSeek-V3", count: 1 }], [{ service: "chat-api", count: 1 }]])
      expect(t.diagnosis.curl).toContain(`"model":"deepseek-ai/DeepSeek-V3"`)
      expect(t.diagnosis.otherModelsAffected).toEqual(["Qwen/Qwen2.5-72B-Instruct"])
      expect(t.diagnosis.curlOtherModel).toContain(`"model":"THUDM/glm-4-9b-chat"`)
      expect(JSON.parse(ticketRows()[0]!.payload)).toMatchObject({ kind: "ticket", status: "open", ticket: { id: t.id } })
      // the server-errors rule alerts as well (default receivers)
      expect(outboxRows(db).filter((r) => r.kind === "alert").map((r) => JSON.parse(r.payload).rule)).toEqual(["server-errors"])

      yield* engine.observe([event({ ...first, id: "evt_again_1", at: T0 + 1000 })])
      t = (yield* engine.listTickets({ limit: 10 })).items[0]!
      expect([t.count, t.lastSeen]).toEqual([2, new Date(T0 + 1000).toISOString()])
      expect(ticketRows()).toHaveLength(1)
      expect(ticketsOpen(db)).toBe(1)

      const ack = yield* engine.acknowledgeTicket(t.id)
      expect(ack._tag === "Changed" && ack.ticket.state).toBe("acknowledged")
      expect(ticketsOpen(db)).toBe(1)
      yield* TestClock.adjust(10 * MIN)
      const resolvedAt = yield* now
      const res = yield* engine.resolveTicket(t.id)
      expect(res._tag === "Changed" && res.ticket.state).toBe("resolved")
      expect(ticketRows().map((r) => r.status)).toEqual(["open", "resolved"])
      expect(ticketsOpen(db)).toBe(0)
      expect((yield* engine.acknowledgeTicket(t.id))._tag).toBe("Conflict")
      expect((yield* engine.resolveTicket("tkt_unknown"))._tag).toBe("NotFound")

      // an occurrence older than the resolution (a backlog read late): counted, not reopened
      yield* engine.observe([event({ ...first, id: "evt_old", at: resolvedAt - MIN })])
      t = (yield* engine.listTickets({ limit: 10 })).items[0]!
      expect([t.state, t.count, t.reopenedCount]).toEqual(["resolved", 3, 0])
      expect(ticketRows()).toHaveLength(2)
      // a newer one reopens it and is sent again
      yield* engine.observe([event({ ...first, id: "evt_new", at: resolvedAt + 1000 })])
      t = (yield* engine.listTickets({ limit: 10 })).items[0]!
      expect([t.state, t.count, t.reopenedCount, t.eventId]).toEqual(["open", 4, 1, "evt_new"])
      expect(ticketRows().map((r) => r.status)).toEqual(["open", "resolved", "reopened"])
    })
  )

  it.scoped("tickets: a batch is taken occurrence by occurrence in event-time order", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(T0)
      const { engine, db } = yield* harness(hookConfig(), tempDb())
      const e = event({ category: "server_error", at: T0 })
      yield* engine.observe([event({ ...e, id: "b1", at: T0 - 2000 }), event({ ...e, id: "b2", at: T0 }), event({ ...e, id: "b3", at: T0 - 1000 })])
      let t = (yield* engine.listTickets({ limit: 10 })).items
      expect(t.map((x) => [x.count, x.eventId, x.firstSeen, x.lastSeen])).toEqual([[3, "b1", new Date(T0 - 2000).toISOString(), new Date(T0).toISOString()]])
      yield* TestClock.adjust(MIN)
      const resolvedAt = yield* now
      yield* engine.resolveTicket(t[0]!.id)
      yield* engine.observe([event({ ...e, id: "n2", at: resolvedAt + 2000 }), event({ ...e, id: "old", at: resolvedAt - 1000 }), event({ ...e, id: "n1", at: resolvedAt + 1000 })])
      t = (yield* engine.listTickets({ limit: 10 })).items
      expect(t.map((x) => [x.state, x.count, x.reopenedCount, x.eventId])).toEqual([["open", 6, 1, "n1"]])
      expect(outboxRows(db).filter((r) => r.kind === "ticket").map((r) => r.status)).toEqual(["open", "resolved", "reopened"])
    })
  )

  it.scoped("history older than database.retentionDays is pruned; counters and open work are kept", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(T0)
      const { engine, db } = yield* harness(hookConfig({ database: { retentionDays: 2 } }), tempDb(), { evaluateEvery: "30 minutes" })
      yield* engine.observe([event({ category: "quota", at: T0 }), event({ category: "auth_key", at: T0 })])
      deliverAll(db, T0)
      yield* TestClock.adjust(40 * MIN) // both resolve
      expect(outboxRows(db).map((r) => r.reason)).toEqual(["firing", "firing", "resolved", "resolved"])
      deliverAll(db, yield* now)
      yield* TestClock.adjust(3 * 86_400_000)
      expect(outboxRows(db)).toEqual([])
      expect((yield* engine.listAlerts({ limit: 10 })).items).toEqual([])
      expect(db.prepare("SELECT COUNT(*) FROM notification_attempts").pluck().get()).toBe(0)
      // undelivered work is never pruned, nor the alerts it belongs to
      yield* engine.observe([event({ category: "quota", at: yield* now })])
      yield* TestClock.adjust(3 * 86_400_000)
      expect(outboxRows(db).map((r) => [r.reason, r.state])).toEqual([["firing", "pending"], ["resolved", "pending"]])
      expect((yield* engine.listAlerts({ limit: 10 })).items.map((a) => a.state)).toEqual(["resolved"])
      expect(notificationCounts(db)).toEqual([{ receiver: "hook", outcome: "delivered", count: 4 }])
    })
  )

  it.scoped("diagnose(eventId) reads the stored event and prints the procedure", () =>
    Effect.gen(function* () {
      const file = tempDb()
      const { db } = yield* harness(hookConfig(), file)
      const e = event({ category: "transport", at: T0, model: "m1" })
      storeEvents(db, [e])
      const d = yield* diagnose(e.id).pipe(Effect.provideService(Database, { db, file }))
      expect(d.event).toEqual(e)
      expect(d.diagnosis.hints).toContain("If a proxy is enabled, disable it and retry.")
      expect(formatDiagnosis(d)).toContain(`Event ${e.id}`)
      const missing = yield* Effect.either(diagnose("evt_missing").pipe(Effect.provideService(Database, { db, file })))
      expect(Either.isLeft(missing) && missing.left.reason).toBe("not_found")
    })
  )
})
