/**
 * Delivery to REAL receivers (node:http on 127.0.0.1) over a REAL SQLite file, real time:
 * outages, Retry-After, dead letters, stable delivery ids, signatures, timeouts, restarts.
 * Waits poll for conditions with generous bounds; nothing asserts on a fixed sleep.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { createHmac } from "node:crypto"
import { dedupKeyOf } from "../../src/alert/receivers/pagerduty.js"
import { config, event, freePort, harness, outboxRows, receiver, startReceiver, tempDb, waitFor } from "./helpers.js"

const delivery = { initialBackoff: "50ms", maxBackoff: "200ms" }
const notFound = (model: string) => event({ category: "model_not_found", model, at: Date.now() })

describe("relay", () => {
  it.scopedLive("a receiver down for a while loses nothing; every attempt is recorded", () =>
    Effect.gen(function* () {
      const port = yield* Effect.promise(() => freePort())
      const cfg = config({ receivers: [{ name: "hook", type: "webhook", url: `http://127.0.0.1:${port}/hook` }], defaultReceivers: ["hook"], delivery })
      const { engine, db } = yield* harness(cfg, tempDb(), { relay: true })
      yield* engine.observe([notFound("m1"), notFound("m2"), notFound("m3")])
      expect(outboxRows(db)).toHaveLength(3)
      yield* waitFor("three failed attempts on each notification", () => outboxRows(db).every((r) => r.attempts >= 3 && r.state === "pending"))
      const hook = yield* Effect.acquireRelease(Effect.promise(() => startReceiver(port)), (r) => Effect.promise(() => r.close()))
      yield* waitFor("all delivered", () => outboxRows(db).every((r) => r.state === "delivered"))
      const ids = outboxRows(db).map((r) => r.id).sort()
      expect(hook.requests.map((r) => r.headers["x-faultline-delivery"]).sort()).toEqual(ids)
      expect(hook.requests.map((r) => JSON.parse(r.body).labels.model).sort()).toEqual(["m1", "m2", "m3"])
      for (const r of hook.requests) expect([r.method, r.path, r.headers["content-type"]]).toEqual(["POST", "/hook", "application/json"])
      const page = yield* engine.listNotifications({ state: "delivered", receiver: "hook", limit: 10 })
      expect(page.items).toHaveLength(3)
      for (const n of page.items) {
        const outcomes = n.attempts.map((a) => a.outcome)
        expect(outcomes.slice(0, -1).every((o) => o === "failed")).toBe(true)
        expect(outcomes.at(-1)).toBe("delivered")
        expect(n.attempts[0]!.statusCode).toBeNull()
        expect(n.attempts[0]!.error).toMatch(/^transport error: .*ECONNREFUSED/)
        expect(n.attempts.at(-1)!.statusCode).toBe(200)
        expect(n.attemptCount).toBe(n.attempts.length)
      }
      expect(engine.gauges.outboxPending()).toBe(0)
      const counts = engine.gauges.notifications()
      expect(counts.find((c) => c.outcome === "delivered")?.count).toBe(3)
      expect(counts.find((c) => c.outcome === "failed")!.count).toBeGreaterThanOrEqual(9)
    })
  )

  it.scopedLive("X-Faultline-Delivery and the body are identical on every attempt; the HMAC signature verifies", () =>
    Effect.gen(function* () {
      const hook = yield* receiver()
      hook.respond = (_r, n) => (n < 2 ? { status: 500, body: "boom" } : { status: 204 })
      const cfg = config({ receivers: [{ name: "hook", type: "webhook", url: `${hook.url}/signed`, secret: "topsecret" }], defaultReceivers: ["hook"], delivery })
      const { engine, db } = yield* harness(cfg, tempDb(), { relay: true })
      yield* engine.observe([notFound("m1")])
      yield* waitFor("delivered", () => outboxRows(db)[0]?.state === "delivered")
      expect(hook.requests).toHaveLength(3)
      const [id] = outboxRows(db).map((r) => r.id)
      expect(new Set(hook.requests.map((r) => r.headers["x-faultline-delivery"]))).toEqual(new Set([id]))
      expect(new Set(hook.requests.map((r) => r.body)).size).toBe(1)
      for (const r of hook.requests) {
        expect(r.headers["x-faultline-signature"]).toBe(`sha256=${createHmac("sha256", "topsecret").update(r.body).digest("hex")}`)
      }
      const body = JSON.parse(hook.requests[0]!.body)
      expect(body).toMatchObject({ kind: "alert", status: "firing", rule: "model-not-found", groupKey: 'model-not-found{model="m1"}', deliveryId: id })
      const n = (yield* engine.listNotifications({ limit: 10 })).items[0]!
      expect(n.attempts.map((a) => [a.statusCode, a.outcome])).toEqual([[500, "failed"], [500, "failed"], [204, "delivered"]])
      expect(n.attempts[0]!.error).toBe("HTTP 500: boom")
    })
  )

  it.scopedLive("429 with Retry-After is honoured", () =>
    Effect.gen(function* () {
      const hook = yield* receiver()
      hook.respond = (_r, n) => (n === 0 ? { status: 429, headers: { "retry-after": "2" }, body: "slow down" } : { status: 200 })
      const cfg = config({ receivers: [{ name: "hook", type: "webhook", url: hook.url }], defaultReceivers: ["hook"], delivery })
      const { engine, db } = yield* harness(cfg, tempDb(), { relay: true })
      yield* engine.observe([notFound("m1")])
      yield* waitFor("delivered", () => outboxRows(db)[0]?.state === "delivered")
      expect(hook.requests).toHaveLength(2)
      expect(hook.requests[1]!.at - hook.requests[0]!.at).toBeGreaterThanOrEqual(1_900)
      const n = (yield* engine.listNotifications({ limit: 1 })).items[0]!
      expect(n.attempts.map((a) => a.statusCode)).toEqual([429, 200])
    })
  )

  it.scopedLive("a 400 is a dead letter after one attempt, visible with its attempt; Slack's invalid_payload too", () =>
    Effect.gen(function* () {
      const hook = yield* receiver()
      hook.respond = () => ({ status: 400, body: '{"error":"bad field"}' })
      const slack = yield* receiver()
      slack.respond = () => ({ status: 400, body: "invalid_payload" })
      const cfg = config({
        receivers: [{ name: "hook", type: "webhook", url: hook.url }, { name: "slack", type: "slack", url: slack.url }],
        defaultReceivers: ["hook", "slack"],
        delivery
      })
      const { engine, db } = yield* harness(cfg, tempDb(), { relay: true })
      yield* engine.observe([notFound("m1")])
      yield* waitFor("both dead", () => outboxRows(db).length === 2 && outboxRows(db).every((r) => r.state === "dead"))
      const dead = yield* engine.listNotifications({ state: "dead", limit: 10 })
      expect(dead.items.map((n) => [n.receiver, n.attemptCount, n.attempts.map((a) => [a.statusCode, a.outcome])]).sort()).toEqual([
        ["hook", 1, [[400, "dead"]]],
        ["slack", 1, [[400, "dead"]]]
      ])
      expect(dead.items.find((n) => n.receiver === "slack")!.lastError).toBe("HTTP 400: invalid_payload")
      expect((yield* engine.listNotifications({ state: "dead", receiver: "hook", limit: 10 })).items).toHaveLength(1)
      expect(hook.requests).toHaveLength(1)
      expect(slack.requests).toHaveLength(1)
      const sent = JSON.parse(slack.requests[0]!.body)
      expect(Object.keys(sent).sort()).toEqual(["blocks", "text"])
    })
  )

  it.scopedLive("a hanging receiver is cut off by its timeout and does not hold back another receiver", () =>
    Effect.gen(function* () {
      const slow = yield* receiver()
      slow.respond = () => "hang"
      const fast = yield* receiver()
      const cfg = config({
        receivers: [{ name: "slow", type: "webhook", url: slow.url, timeout: "1s" }, { name: "fast", type: "webhook", url: fast.url }],
        defaultReceivers: ["slow", "fast"],
        delivery
      })
      const { engine, db } = yield* harness(cfg, tempDb(), { relay: true })
      yield* engine.observe([notFound("m1"), notFound("m2")])
      yield* waitFor("fast delivered", () => outboxRows(db).filter((r) => r.receiver === "fast").every((r) => r.state === "delivered"))
      yield* waitFor("slow timed out twice", () => outboxRows(db).filter((r) => r.receiver === "slow").every((r) => r.attempts >= 2))
      const slowRows = (yield* engine.listNotifications({ receiver: "slow", limit: 10 })).items
      for (const n of slowRows) {
        expect(n.state).toBe("pending")
        expect(n.attempts[0]).toMatchObject({ statusCode: null, outcome: "failed", error: "timeout after 1000 ms" })
        expect(n.attempts[0]!.durationMs).toBeGreaterThanOrEqual(990)
        expect(n.attempts[0]!.durationMs).toBeLessThan(5_000)
      }
      const fastRows = (yield* engine.listNotifications({ receiver: "fast", limit: 10 })).items
      const firstSlowEnd = Math.min(...slowRows.map((n) => Date.parse(n.attempts[0]!.at) + n.attempts[0]!.durationMs))
      for (const n of fastRows) expect(Date.parse(n.deliveredAt!)).toBeLessThan(firstSlowEnd)
    })
  )

  it.scopedLive("a crash between decision and delivery: the pending row is delivered after restart, with its delivery id", () =>
    Effect.gen(function* () {
      const hook = yield* receiver()
      const file = tempDb()
      const cfg = config({ receivers: [{ name: "hook", type: "webhook", url: hook.url }], defaultReceivers: ["hook"], tickets: { receivers: ["hook"] }, delivery })
      const decided = yield* Effect.scoped(
        Effect.gen(function* () {
          const { engine, db } = yield* harness(cfg, file) // no relay: the process "dies" before delivering
          yield* engine.observe([notFound("m1"), event({ category: "server_error", at: Date.now() })])
          return outboxRows(db)
        })
      )
      expect(decided.map((r) => [r.kind, r.state])).toEqual([["alert", "pending"], ["alert", "pending"], ["ticket", "pending"]])
      expect(hook.requests).toHaveLength(0)
      const { db } = yield* harness(cfg, file, { relay: true })
      yield* waitFor("delivered after restart", () => outboxRows(db).every((r) => r.state === "delivered"))
      expect(hook.requests.map((r) => r.headers["x-faultline-delivery"]).sort()).toEqual(decided.map((r) => r.id).sort())
      expect(hook.requests.map((r) => JSON.parse(r.body).kind).sort()).toEqual(["alert", "alert", "ticket"])
    })
  )

  it.scopedLive("PagerDuty: trigger then resolve in order with the same dedup_key, even when the trigger needs retries", () =>
    Effect.gen(function* () {
      const pd = yield* receiver()
      pd.respond = (_r, n) => (n < 2 ? { status: 502, body: "bad gateway" } : { status: 202, body: '{"status":"success","message":"Event processed"}' })
      const cfg = config({
        receivers: [{ name: "pd", type: "pagerduty", url: `${pd.url}/v2/enqueue`, routingKey: "R0UTINGKEY0123456789012345678901" }],
        defaultReceivers: ["pd"],
        rules: [{ name: "quota-exhausted", window: "1s", resolveAfter: "1s" }],
        delivery: { initialBackoff: "700ms", maxBackoff: "700ms" }
      })
      const { engine, db } = yield* harness(cfg, tempDb(), { relay: true, evaluateEvery: "100 millis" })
      yield* engine.observe([event({ category: "quota", at: Date.now() })])
      yield* waitFor("trigger and resolve delivered", () => {
        const rows = outboxRows(db)
        return rows.length === 2 && rows.every((r) => r.state === "delivered")
      })
      const bodies = pd.requests.map((r) => JSON.parse(r.body))
      expect(bodies.map((b) => b.event_action)).toEqual(["trigger", "trigger", "trigger", "resolve"])
      expect(new Set(bodies.map((b) => b.dedup_key))).toEqual(new Set([dedupKeyOf("quota-exhausted{}")]))
      expect(bodies[0].payload).toMatchObject({ severity: "critical", class: "quota", group: "chat-api", component: "Qwen/Qwen2.5-7B-Instruct" })
      expect(pd.requests.every((r) => r.path === "/v2/enqueue")).toBe(true)
    })
  )
})
