/** The alerting HTTP routes over a real server on a random port and a real SQLite file. */
import { HttpClient, HttpClientRequest, HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { AlertEngine } from "../../src/alert/engine.js"
import { alertRoutes } from "../../src/http/alertRoutes.js"
import { errorResponse } from "../../src/http/respond.js"
import { config, event, harness, tempDb } from "./helpers.js"

const cfg = config({
  receivers: [{ name: "hook", type: "webhook", url: "http://127.0.0.1:9/hook" }],
  defaultReceivers: ["hook"],
  tickets: { receivers: ["hook"] }
})

const MAX_BODY = 64 * 1024

/** Engine over a temp DB + the routes served on 127.0.0.1:<random>; answers (status, JSON body). */
const setup = Effect.gen(function* () {
  const { engine } = yield* harness(cfg, tempDb())
  const app = alertRoutes({ maxBodyBytes: MAX_BODY }).pipe(Effect.catchTag("HttpFailure", (e) => Effect.succeed(errorResponse(e))))
  const ctx = yield* Layer.build(
    HttpServer.serve(app).pipe(Layer.provide(Layer.succeed(AlertEngine, engine)), Layer.provideMerge(NodeHttpServer.layerTest))
  )
  const client = (yield* HttpClient.HttpClient.pipe(Effect.provide(ctx))).pipe(HttpClient.withTracerPropagation(false))
  const call = (method: "GET" | "POST" | "DELETE", path: string, body?: unknown, contentType = "application/json") =>
    Effect.gen(function* () {
      let req = HttpClientRequest.make(method)(path)
      if (body !== undefined) req = HttpClientRequest.bodyText(req, typeof body === "string" ? body : JSON.stringify(body), contentType)
      const res = yield* client.execute(req)
      const text = yield* res.text
      return { status: res.status, body: text === "" ? null : (JSON.parse(text) as any) }
    }).pipe(Effect.orDie)
  return { engine, call }
})

describe("alert routes", () => {
  it.scopedLive("lists alerts with their notifications, tickets, notifications; acknowledges and resolves tickets", () =>
    Effect.gen(function* () {
      const { engine, call } = yield* setup
      yield* engine.observe([event({ category: "server_error", at: Date.now() })])

      const alerts = yield* call("GET", "/v1/alerts?state=firing")
      expect(alerts.status).toBe(200)
      expect(Object.keys(alerts.body).sort()).toEqual(["alerts", "nextCursor"])
      const a = alerts.body.alerts[0]
      for (const k of ["id", "rule", "groupKey", "labels", "state", "severity", "count", "startsAt", "endsAt", "lastNotifiedAt", "action", "notifications"]) expect(a).toHaveProperty(k)
      expect([a.rule, a.state, a.severity, a.notifications.length, a.notifications[0].receiver]).toEqual(["server-errors", "firing", "critical", 1, "hook"])
      expect((yield* call("GET", "/v1/alerts?state=resolved")).body).toEqual({ alerts: [], nextCursor: null })

      const tickets = yield* call("GET", "/v1/tickets?state=open")
      const t = tickets.body.tickets[0]
      for (const k of ["id", "fingerprint", "state", "count", "firstSeen", "lastSeen", "reopenedCount", "model", "service", "status", "code", "message", "sample", "diagnosis"]) {
        expect(t).toHaveProperty(k)
      }
      expect(Object.keys(t.diagnosis).sort()).toEqual(["curl", "curlOtherModel", "hints", "otherModelsAffected", "summary"])

      const ack = yield* call("POST", `/v1/tickets/${t.id}/acknowledge`)
      expect([ack.status, ack.body.state]).toEqual([200, "acknowledged"])
      const res = yield* call("POST", `/v1/tickets/${t.id}/resolve`)
      expect([res.status, res.body.state, typeof res.body.resolvedAt]).toEqual([200, "resolved", "string"])
      expect((yield* call("POST", `/v1/tickets/${t.id}/acknowledge`)).status).toBe(409)
      const unknown = yield* call("POST", "/v1/tickets/tkt_nope/resolve")
      expect([unknown.status, unknown.body.error.code]).toEqual([404, "not_found"])
      expect((yield* call("POST", "/v1/tickets/tkt_nope/acknowledge")).status).toBe(404)

      const notes = yield* call("GET", "/v1/notifications?state=pending&receiver=hook")
      expect(notes.body.notifications.map((n: any) => [n.kind, n.status])).toEqual([["ticket", "resolved"], ["ticket", "open"], ["alert", "firing"]])
      expect(notes.body.notifications[0]).toHaveProperty("attempts")
      expect(notes.body.notifications[0]).toHaveProperty("payload")
      const paged = yield* call("GET", "/v1/notifications?limit=2")
      expect(paged.body.notifications).toHaveLength(2)
      const rest = yield* call("GET", `/v1/notifications?limit=2&cursor=${paged.body.nextCursor}`)
      expect([rest.body.notifications.length, rest.body.nextCursor]).toEqual([1, null])
      expect((yield* call("GET", "/v1/notifications?state=dead")).body).toEqual({ notifications: [], nextCursor: null })
    })
  )

  it.scopedLive("bad queries are 400 with the reason", () =>
    Effect.gen(function* () {
      const { call } = yield* setup
      for (const path of ["/v1/alerts?state=pending", "/v1/tickets?state=closed", "/v1/notifications?state=sent", "/v1/alerts?limit=0", "/v1/silences?state=nope"]) {
        const r = yield* call("GET", path)
        expect([path, r.status, r.body.error.code]).toEqual([path, 400, "bad_query"])
        expect(r.body.error.message.length).toBeGreaterThan(0)
      }
    })
  )

  it.scopedLive("silences: create (matchers or labels, endsAt or duration), list, delete; bad bodies are 400 with the reason", () =>
    Effect.gen(function* () {
      const { engine, call } = yield* setup
      const created = yield* call("POST", "/v1/silences", {
        matchers: [{ label: "alertname", value: "server-errors" }, { label: "severity", value: "crit.*", isRegex: true }],
        duration: "2h",
        comment: "deploy",
        createdBy: "ops"
      })
      expect(created.status).toBe(201)
      expect(created.body).toMatchObject({ state: "active", comment: "deploy", createdBy: "ops", matchers: [{ label: "alertname", value: "server-errors", isRegex: false }, { label: "severity", isRegex: true }] })
      expect(Date.parse(created.body.endsAt) - Date.parse(created.body.startsAt)).toBe(2 * 3_600_000)
      const byLabels = yield* call("POST", "/v1/silences", { labels: { alertname: "quota-exhausted" }, endsAt: new Date(Date.now() + 60_000).toISOString() })
      expect(byLabels.status).toBe(201)

      // the silence mutes: the server-errors alert is recorded, its notification muted
      yield* engine.observe([event({ category: "server_error", at: Date.now() })])
      const alert = (yield* call("GET", "/v1/alerts")).body.alerts[0]
      expect([alert.silencedBy, alert.notifications[0].state]).toEqual([created.body.id, "muted"])

      const list = yield* call("GET", "/v1/silences")
      expect(list.body.silences.map((s: any) => s.id)).toEqual([byLabels.body.id, created.body.id])
      expect(list.body.nextCursor).toBeNull()
      const del = yield* call("DELETE", `/v1/silences/${created.body.id}`)
      expect([del.status, del.body.state]).toEqual([200, "expired"])
      expect((yield* call("GET", "/v1/silences?state=active")).body.silences.map((s: any) => s.id)).toEqual([byLabels.body.id])
      expect((yield* call("DELETE", "/v1/silences/sil_nope")).status).toBe(404)

      const bad: Array<[unknown, string]> = [
        ["{not json", "bad_json"],
        [{ duration: "2h" }, "at least one"],
        [{ matchers: [{ label: "alertname", value: "x" }] }, "exactly one of endsAt"],
        [{ matchers: [{ label: "alertname", value: "x" }], duration: "2h", endsAt: new Date(Date.now() + 60_000).toISOString() }, "exactly one of endsAt"],
        [{ matchers: [{ label: "alertname", value: "x" }], duration: "soon" }, "duration"],
        [{ matchers: [{ label: "", value: "x" }], duration: "2h" }, "matchers"],
        [{ matchers: [{ label: "model", value: "(", isRegex: true }], duration: "2h" }, "invalid regular expression"],
        [{ matchers: [{ label: "model", value: "x" }], endsAt: "2001-01-01T00:00:00Z" }, "in the past"],
        [{ matchers: [{ label: "model", value: "x" }], duration: "2h", colour: "red" }, "colour"],
        // durations and instants a Date can hold, a year at most; patterns that cannot backtrack
        [{ matchers: [{ label: "model", value: "x" }], duration: "99999999d" }, "at most a year"],
        [{ matchers: [{ label: "model", value: "x" }], endsAt: "+275760-09-13T00:00:00.000Z" }, "ISO-8601"],
        [{ matchers: [{ label: "model", value: "x" }], endsAt: new Date(Date.now() + 400 * 86_400_000).toISOString() }, "at most a year ahead"],
        [{ matchers: [{ label: "model", value: "(a+)+b", isRegex: true }], duration: "2h" }, "backtrack catastrophically"]
      ]
      for (const [body, reason] of bad) {
        const r = yield* call("POST", "/v1/silences", body)
        expect([JSON.stringify(body), r.status]).toEqual([JSON.stringify(body), 400])
        expect(`${r.body.error.code} ${r.body.error.message}`).toContain(reason)
      }
      // the ingest route's limits: 415 for another content type, 413 past maxBodyBytes, and a
      // reason that never echoes the body
      const plain = yield* call("POST", "/v1/silences", { labels: { alertname: "x" }, duration: "2h" }, "text/plain")
      expect([plain.status, plain.body.error.code]).toEqual([415, "unsupported_media_type"])
      const big = yield* call("POST", "/v1/silences", { labels: { alertname: "x" }, duration: "2h", comment: "c".repeat(MAX_BODY) })
      expect([big.status, big.body.error.code]).toEqual([413, "payload_too_large"])
      const echo = yield* call("POST", "/v1/silences", { labels: { alertname: "x" }, duration: "z".repeat(50_000) })
      expect(echo.status).toBe(400)
      expect(JSON.stringify(echo.body).length).toBeLessThan(1000)
      // nothing was created by the bad bodies
      expect((yield* call("GET", "/v1/silences")).body.silences).toHaveLength(2)
    })
  )
})
