/**
 * Alerting through the daemon (CONTRACT section 7) as a user runs it: the built CLI runs `serve`
 * in a temp folder on an ephemeral loopback port; failures arrive through a tailed file and
 * POST /v1/events; notifications go to a real recording HTTP receiver on 127.0.0.1 (and, in its
 * own test, to a real Prometheus Alertmanager). Crashes are real `kill -9`s.
 *
 * The daemon evaluates its rules every 5 s (not configurable from outside), so resolutions are
 * waited for with generous bounds, with `window` and `resolveAfter` overridden to seconds.
 */
import type { ChildProcess } from "node:child_process"
import { createHmac } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { type Daemon, startDaemon, tempDir, waitFor } from "../support/daemon.js"
import { AM_BIN, type AmAlert, amSkip, startAlertmanager } from "../support/alertmanager.js"
import { type Received, type Receiver, startReceiver } from "../support/receiver.js"

const SECRET = "s3cret"
const WAIT = 40_000
const M1 = "Qwen/Qwen2.5-7B-Instruct"
const M2 = "deepseek-ai/DeepSeek-V3"
const M3 = "Kwai-Kolors/Kolors"

// ---------------------------------------------------------------------------------------------
// what each test started, stopped after it whatever happened

const daemons: Daemon[] = []
const receivers: Receiver[] = []
const children: ChildProcess[] = []
afterEach(async () => {
  for (const d of daemons.splice(0)) if (d.proc.exitCode === null && d.proc.signalCode === null) await d.kill9()
  for (const r of receivers.splice(0)) await r.close()
  for (const c of children.splice(0)) {
    if (c.exitCode === null && c.signalCode === null) {
      const exited = new Promise((resolve) => c.once("exit", resolve))
      c.kill("SIGKILL")
      await exited
    }
  }
})

const receiver = async (): Promise<Receiver> => {
  const r = await startReceiver()
  receivers.push(r)
  return r
}

/** The config every test starts from: one signed webhook receiver for alerts and tickets. */
const baseConfig = (dir: string, hook: Receiver, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  tail: [{ path: path.join(dir, "logs/**/*.log"), startAt: "beginning" }],
  receivers: [{ name: "hook", type: "webhook", url: `${hook.url}/hook`, secret: SECRET, timeout: "5s" }],
  defaultReceivers: ["hook"],
  tickets: { receivers: ["hook"] },
  delivery: { initialBackoff: "200ms", maxBackoff: "1s" },
  ...extra
})

const daemon = async (dir: string, config: Record<string, unknown>): Promise<Daemon> => {
  const d = await startDaemon({ dir, config })
  daemons.push(d)
  return d
}

const newDir = (): string => {
  const dir = tempDir("faultline-alerting-")
  fs.mkdirSync(path.join(dir, "logs"))
  return dir
}

const post = async (d: Daemon, records: unknown): Promise<{ accepted: number; rejected: unknown[] }> => {
  const r = await d.fetch("/v1/events", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(records) })
  const text = await r.text()
  expect(r.status, text).toBe(202)
  return JSON.parse(text)
}

const svc = (code: number, message: string) => ({ code, message, data: null })
const invalidKey = (extra: Record<string, unknown> = {}) => ({ status: 401, model: M1, service: "chat-api", body: svc(401, "Invalid token"), ...extra })
const serverError = (requestId: string, extra: Record<string, unknown> = {}) => ({
  status: 500,
  model: M2,
  service: "batch-worker",
  requestId,
  body: svc(50500, `The server had an error while processing your request. Request id: ${requestId}`),
  ...extra
})

/** The requests of the receiver whose JSON body matches. */
const got = (r: Receiver, match: (b: any) => boolean): Received[] =>
  r.received.filter((x) => {
    try {
      return match(x.json())
    } catch {
      return false
    }
  })
const alertsFor = (r: Receiver, rule: string, status?: string) => got(r, (b) => b.kind === "alert" && b.rule === rule && (status === undefined || b.status === status))
const ticketsFor = (r: Receiver, status?: string) => got(r, (b) => b.kind === "ticket" && (status === undefined || b.status === status))

const header = (x: Received, name: string): string => {
  const v = x.headers[name]
  expect(typeof v, `header ${name}`).toBe("string")
  return v as string
}

/** X-Faultline-Signature: sha256=<hex HMAC-SHA256 of the exact body bytes, keyed with the receiver's secret>. */
const expectSigned = (x: Received): void => {
  const expected = `sha256=${createHmac("sha256", SECRET).update(x.body).digest("hex")}`
  expect(header(x, "x-faultline-signature")).toBe(expected)
}

const notifications = async (d: Daemon, query: string): Promise<any[]> => (await d.json(`/v1/notifications?${query}`)).notifications

const metric = async (d: Daemon, line: RegExp): Promise<number | null> => {
  const text = await (await fetch(`${d.url}/metrics`)).text()
  for (const l of text.split("\n")) {
    const m = line.exec(l)
    if (m) return Number(l.slice(l.lastIndexOf(" ") + 1))
  }
  return null
}

// ---------------------------------------------------------------------------------------------

describe("alerting through the daemon", { timeout: 150_000 }, () => {
  it("pages a signed webhook for a 401 appended to a tailed file, lists it with its history, and resolves it", async () => {
    const hook = await receiver()
    const dir = newDir()
    const d = await daemon(dir, baseConfig(dir, hook, { rules: [{ name: "api-key-invalid", window: "10s", resolveAfter: "2s" }] }))

    const key = "sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c"
    fs.appendFileSync(
      path.join(dir, "logs/app.log"),
      `${new Date().toISOString()} INFO app.agent - calling the model\n` +
        `${new Date().toISOString()} ERROR app.agent - Error code: 401 - {'error': {'message': 'Incorrect API key provided: ${key}.', 'type': 'invalid_request_error', 'param': None, 'code': 'invalid_api_key'}}\n`
    )

    const [firing] = await waitFor("the firing notification of api-key-invalid", () => {
      const l = alertsFor(hook, "api-key-invalid", "firing")
      return l.length > 0 ? l : undefined
    }, WAIT)
    expect(firing!.method).toBe("POST")
    expect(firing!.path).toBe("/hook")
    expect(firing!.headers["content-type"]).toMatch(/^application\/json/)
    expectSigned(firing!)
    const deliveryId = header(firing!, "x-faultline-delivery")
    expect(deliveryId.length).toBeGreaterThan(8)
    const body = firing!.json()
    expect(body).toMatchObject({
      kind: "alert",
      status: "firing",
      repeat: false,
      rule: "api-key-invalid",
      groupKey: "api-key-invalid{}",
      category: "auth_key",
      severity: "critical",
      count: 1,
      threshold: 1,
      window: "10s",
      labels: { alertname: "api-key-invalid", category: "auth_key", severity: "critical" },
      endsAt: null,
      deliveryId
    })
    expect(body.action).toMatch(/API key/i)
    expect(body.link).toBe(`${d.url}/v1/alerts?state=firing`)
    expect(body.sampleEvents).toHaveLength(1)
    expect(body.sampleEvents[0]).toMatchObject({ status: 401, category: "auth_key", source: `file:${path.join(dir, "logs/app.log")}`, line: 2 })
    // the key in the log line never reaches the receiver
    expect(firing!.body).not.toContain(key)
    expect(firing!.body).toContain("<redacted>")

    // GET /v1/alerts?state=firing: the alert with its notification history, once the attempt is recorded
    const alert = await waitFor("the firing notification recorded as delivered", async () => {
      const a = ((await d.json("/v1/alerts?state=firing")).alerts as any[]).find((x) => x.rule === "api-key-invalid")
      return a?.notifications?.[0]?.state === "delivered" ? a : undefined
    }, WAIT)
    expect(alert).toMatchObject({ id: body.alertId, groupKey: "api-key-invalid{}", state: "firing", severity: "critical", count: 1, endsAt: null, silencedBy: null })
    expect(alert.notifications).toHaveLength(1)
    expect(alert.notifications[0]).toMatchObject({ id: deliveryId, notificationId: body.notificationId, receiver: "hook", receiverType: "webhook", kind: "alert", status: "firing", reason: "firing", state: "delivered", attemptCount: 1 })
    expect(alert.notifications[0].attempts).toEqual([expect.objectContaining({ attempt: 1, statusCode: 200, outcome: "delivered", error: null })])

    // no more 401s: below threshold once the event leaves the 10s window, resolved 2s later
    const [resolved] = await waitFor("the resolved notification of api-key-invalid", () => {
      const l = alertsFor(hook, "api-key-invalid", "resolved")
      return l.length > 0 ? l : undefined
    }, WAIT)
    expectSigned(resolved!)
    const rb = resolved!.json()
    expect(rb).toMatchObject({ kind: "alert", status: "resolved", rule: "api-key-invalid", alertId: body.alertId, groupKey: "api-key-invalid{}" })
    // resolved no sooner than window (10s) + resolveAfter (2s) after the event
    expect(Date.parse(rb.endsAt)).toBeGreaterThanOrEqual(Date.parse(body.sampleEvents[0].occurredAt) + 12_000)
    expect(header(resolved!, "x-faultline-delivery")).not.toBe(deliveryId)
    // firing came first, and exactly one of each
    expect(alertsFor(hook, "api-key-invalid").map((x) => x.json().status)).toEqual(["firing", "resolved"])

    const after = await waitFor("the resolved alert with both notifications delivered", async () => {
      const a = ((await d.json("/v1/alerts?state=resolved")).alerts as any[]).find((x) => x.id === body.alertId)
      return a?.notifications?.length === 2 && a.notifications.every((n: any) => n.state === "delivered") ? a : undefined
    }, WAIT)
    expect(after.notifications.map((n: any) => [n.reason, n.state])).toEqual([["firing", "delivered"], ["resolved", "delivered"]])
    expect(after.endsAt).toBe(rb.endsAt)
    expect(((await d.json("/v1/alerts?state=firing")).alerts as any[]).filter((a) => a.rule === "api-key-invalid")).toEqual([])
  })

  it("opens a ticket for a 500 with the diagnosis, resolves it over the API, and reopens it on a new occurrence", async () => {
    const hook = await receiver()
    const dir = newDir()
    const d = await daemon(dir, baseConfig(dir, hook))

    await post(d, serverError("3f2e1d0c9b8a7f6e"))
    const [open] = await waitFor("the ticket notification", () => {
      const l = ticketsFor(hook, "open")
      return l.length > 0 ? l : undefined
    }, WAIT)
    expectSigned(open!)
    const ob = open!.json()
    expect(ob).toMatchObject({ kind: "ticket", status: "open", category: "server_error", severity: "critical", count: 1 })
    expect(ob.ticket).toMatchObject({ id: ob.ticketId, state: "open", status: 500, code: 50500, model: M2, service: "batch-worker", reopenedCount: 0 })
    const diagnosis = ob.ticket.diagnosis
    expect(diagnosis.summary).toContain("500")
    expect(diagnosis.curl).toMatch(/^curl -i /)
    expect(diagnosis.curl).toContain("authorization: Bearer <API_KEY>")
    expect(diagnosis.curl).toContain(`"model":"${M2}"`)
    expect(diagnosis.curlOtherModel).toContain("authorization: Bearer <API_KEY>")
    expect(diagnosis.curlOtherModel).not.toContain(`"model":"${M2}"`)
    expect(Array.isArray(diagnosis.hints)).toBe(true)
    // the server-errors rule fires too, to the default receivers
    await waitFor("server-errors firing", () => alertsFor(hook, "server-errors", "firing").length === 1, WAIT)

    const [ticket] = (await d.json("/v1/tickets?state=open")).tickets
    expect(ticket).toMatchObject({ id: ob.ticketId, fingerprint: ob.fingerprint, state: "open", count: 1, reopenedCount: 0, diagnosis })

    const r = await d.fetch(`/v1/tickets/${ticket.id}/resolve`, { method: "POST" })
    const resolvedTicket = JSON.parse(await r.text())
    expect(r.status).toBe(200)
    expect(resolvedTicket).toMatchObject({ id: ticket.id, state: "resolved" })
    const resolvedAt = Date.parse(resolvedTicket.resolvedAt)
    expect((await d.json("/v1/tickets?state=resolved")).tickets.map((t: any) => t.id)).toEqual([ticket.id])
    await waitFor("the ticket's resolved notification", () => ticketsFor(hook, "resolved").length === 1, WAIT)
    expect(ticketsFor(hook, "resolved")[0]!.json()).toMatchObject({ ticketId: ticket.id, status: "resolved", groupKey: ob.groupKey })

    // an occurrence from before the resolution, read late, is counted but reopens nothing
    await post(d, serverError("0a1b2c3d4e5f6a7b", { occurredAt: new Date(resolvedAt - 60_000).toISOString() }))
    const counted = (await d.json("/v1/tickets")).tickets.find((t: any) => t.id === ticket.id)
    expect(counted).toMatchObject({ state: "resolved", count: 2, reopenedCount: 0 })

    // the same failure again, after the resolution (its own request id: the same fingerprint)
    await waitFor("the clock to pass the resolution", () => Date.now() > resolvedAt + 5)
    await post(d, serverError("9a8b7c6d5e4f3a2b", { occurredAt: new Date().toISOString() }))
    const [reopened] = await waitFor("the reopened notification", () => {
      const l = ticketsFor(hook, "reopened")
      return l.length > 0 ? l : undefined
    }, WAIT)
    expectSigned(reopened!)
    expect(reopened!.json()).toMatchObject({ kind: "ticket", status: "reopened", ticketId: ticket.id, fingerprint: ob.fingerprint })
    expect(reopened!.json().ticket).toMatchObject({ state: "open", reopenedCount: 1, count: 3 })
    const now = (await d.json("/v1/tickets")).tickets
    expect(now).toHaveLength(1)
    expect(now[0]).toMatchObject({ id: ticket.id, state: "open", reopenedCount: 1, count: 3, resolvedAt: null })
    expect(ticketsFor(hook).map((x) => x.json().status)).toEqual(["open", "resolved", "reopened"])
  })

  it("retries a receiver answering 503 (honouring Retry-After) until it answers 200: nothing lost, every attempt recorded", async () => {
    const hook = await receiver()
    let answered = 0
    hook.respond(() => {
      answered++
      if (answered === 1) return { status: 503, headers: { "retry-after": "1" }, body: '{"error":"starting"}' }
      if (answered <= 3) return { status: 503, body: '{"error":"down"}' }
      return { status: 200 }
    })
    const dir = newDir()
    const d = await daemon(dir, baseConfig(dir, hook))
    // three notifications: api-key-invalid firing, server-errors firing, the ticket
    await post(d, [invalidKey(), serverError("5e4f3a2b1c0d9e8f")])

    const delivered = await waitFor("three notifications delivered", async () => {
      const l = await notifications(d, "state=delivered")
      const pending = await notifications(d, "state=pending")
      return l.length === 3 && pending.length === 0 ? l : undefined
    }, WAIT)
    expect(await notifications(d, "state=dead")).toEqual([])
    expect(delivered.map((n) => `${n.kind}:${n.status}`).sort()).toEqual(["alert:firing", "alert:firing", "ticket:open"])

    // the receiver saw 3 refusals and then one 200 per notification, each with a stable delivery id
    expect(hook.received).toHaveLength(6)
    const ids = new Set(hook.received.map((x) => header(x, "x-faultline-delivery")))
    expect([...ids].sort()).toEqual(delivered.map((n) => n.id).sort())
    for (const n of delivered) {
      const seen = hook.received.filter((x) => x.headers["x-faultline-delivery"] === n.id)
      for (const x of seen) expectSigned(x)
      expect(seen.map((x) => x.json().deliveryId)).toEqual(seen.map(() => n.id))
      expect(n.attemptCount).toBe(seen.length)
      expect(n.attempts).toHaveLength(seen.length)
      expect(n.attempts.map((a: any) => [a.statusCode, a.outcome])).toEqual([...seen.slice(0, -1).map(() => [503, "failed"]), [200, "delivered"]])
      expect(n.deliveredAt).not.toBeNull()
      expect(n.lastError).toBeNull()
    }
    // Retry-After: 1 held the next attempt of that notification back by a second
    const first = hook.received[0]!
    const n1 = delivered.find((n) => n.id === first.headers["x-faultline-delivery"])!
    const [a1, a2] = n1.attempts
    expect(Date.parse(a2.at) - (Date.parse(a1.at) + a1.durationMs)).toBeGreaterThanOrEqual(950)
    expect(await metric(d, /^faultline_notifications_total\{receiver="hook",outcome="delivered"\}/)).toBe(3)
    expect(await metric(d, /^faultline_notifications_total\{receiver="hook",outcome="failed"\}/)).toBe(3)
  })

  it("makes a dead letter of a notification the receiver refuses with 400, without retrying it", async () => {
    const hook = await receiver()
    hook.respond(() => ({ status: 400, body: '{"error":"unknown payload"}' }))
    const dir = newDir()
    const d = await daemon(dir, baseConfig(dir, hook))
    await post(d, invalidKey())

    const [dead] = await waitFor("the notification in state=dead", async () => {
      const l = await notifications(d, "state=dead")
      return l.length > 0 ? l : undefined
    }, WAIT)
    expect(dead).toMatchObject({ receiver: "hook", kind: "alert", status: "firing", state: "dead", attemptCount: 1 })
    expect(dead.lastError).toMatch(/HTTP 400/)
    expect(dead.attempts).toEqual([expect.objectContaining({ attempt: 1, statusCode: 400, outcome: "dead" })])
    expect(await notifications(d, "state=pending")).toEqual([])
    expect(await notifications(d, "state=delivered")).toEqual([])
    expect(hook.received).toHaveLength(1)
    expect(hook.received[0]!.headers["x-faultline-delivery"]).toBe(dead.id)
    expect(await metric(d, /^faultline_notifications_total\{receiver="hook",outcome="dead"\}/)).toBe(1)
    // the alert itself is still firing, with its dead notification in the history
    const [alert] = (await d.json("/v1/alerts?state=firing")).alerts
    expect(alert.notifications.map((n: any) => [n.id, n.state])).toEqual([[dead.id, "dead"]])
  })

  it("gives up on a receiver down for longer than delivery.maxAge (dead letter), and a hanging receiver holds back no other", async () => {
    const down = await receiver()
    down.respond(() => ({ status: 503, body: '{"error":"maintenance"}' }))
    const hang = await receiver()
    hang.respond(() => "hang")
    const hook = await receiver()
    const dir = newDir()
    const d = await daemon(
      dir,
      baseConfig(dir, hook, {
        receivers: [
          { name: "down", type: "webhook", url: `${down.url}/hook`, secret: SECRET },
          { name: "hang", type: "webhook", url: `${hang.url}/hook`, secret: SECRET, timeout: "8s" },
          { name: "hook", type: "webhook", url: `${hook.url}/hook`, secret: SECRET }
        ],
        defaultReceivers: ["down", "hang", "hook"],
        delivery: { maxAge: "2s", initialBackoff: "200ms", maxBackoff: "500ms" }
      })
    )
    await post(d, invalidKey())

    // the healthy receiver gets it while the hanging one still holds its first attempt
    await waitFor("hook delivered while hang is still hanging", async () => {
      const [h] = await notifications(d, "receiver=hook")
      const [g] = await notifications(d, "receiver=hang")
      if (h?.state === "delivered") {
        expect(g).toMatchObject({ state: "pending", attemptCount: 0 })
        return true
      }
      return false
    }, WAIT)

    const dead = await waitFor("down and hang both dead letters", async () => {
      const l = await notifications(d, "state=dead")
      return l.length === 2 ? l : undefined
    }, WAIT)
    const byReceiver = Object.fromEntries(dead.map((n) => [n.receiver, n]))
    expect(byReceiver.down.lastError).toMatch(/HTTP 503.*gave up/)
    expect(byReceiver.down.attempts.length).toBeGreaterThanOrEqual(2)
    expect(byReceiver.down.attempts.slice(0, -1).every((a: any) => a.statusCode === 503 && a.outcome === "failed")).toBe(true)
    expect(byReceiver.down.attempts.at(-1)).toMatchObject({ statusCode: 503, outcome: "dead" })
    expect(byReceiver.down.attempts).toHaveLength(down.received.length)
    expect(byReceiver.hang.lastError).toMatch(/timeout/)
    // one attempt, cut off by its timeout (8s) after maxAge (2s) had passed
    expect(byReceiver.hang.attempts).toEqual([expect.objectContaining({ attempt: 1, statusCode: null, outcome: "dead" })])
    expect(hang.received).toHaveLength(1)
    expect(await notifications(d, "state=pending")).toEqual([])
    expect((await notifications(d, "state=delivered")).map((n) => n.receiver)).toEqual(["hook"])
  })

  it("delivers after a kill -9 during the outage, with the same X-Faultline-Delivery id as before the crash", async () => {
    const hook = await receiver()
    let up = false
    const answers: Array<{ id: string; status: number }> = []
    hook.respond((x) => {
      const status = up ? 200 : 503
      answers.push({ id: String(x.headers["x-faultline-delivery"]), status })
      return { status }
    })
    const dir = newDir()
    const config = baseConfig(dir, hook)
    const d1 = await daemon(dir, config)
    await post(d1, invalidKey())

    const pending = await waitFor("two failed attempts recorded", async () => {
      const [n] = await notifications(d1, "state=pending")
      return n !== undefined && n.attemptCount >= 2 ? n : undefined
    }, WAIT)
    const deliveryId: string = pending.id
    await d1.kill9()
    const beforeCrash = answers.length
    expect(beforeCrash).toBeGreaterThanOrEqual(2)
    expect(answers.every((a) => a.id === deliveryId && a.status === 503)).toBe(true)

    up = true
    const d2 = await daemon(dir, config)
    const delivered = await waitFor("the notification delivered after the restart", async () => {
      const n = (await notifications(d2, "state=delivered")).find((x) => x.id === deliveryId)
      return n ?? undefined
    }, WAIT)

    // one notification, one delivery id on every attempt, exactly one 2xx
    expect(answers.map((a) => a.id)).toEqual(answers.map(() => deliveryId))
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1)
    expect(answers.at(-1)!.status).toBe(200)
    const ok = hook.received.at(-1)!
    expectSigned(ok)
    expect(ok.json()).toMatchObject({ kind: "alert", status: "firing", rule: "api-key-invalid", deliveryId, notificationId: pending.notificationId })
    // the attempts before the crash are kept (an attempt cut short by the kill may be missing from them)
    expect(delivered.attempts.length).toBeGreaterThanOrEqual(pending.attemptCount + 1)
    expect(delivered.attempts.length).toBeLessThanOrEqual(answers.length)
    expect(delivered.attempts.slice(0, -1).every((a: any) => a.statusCode === 503 && a.outcome === "failed")).toBe(true)
    expect(delivered.attempts.at(-1)).toMatchObject({ statusCode: 200, outcome: "delivered" })
    // the restart neither forgot the alert nor paged it again
    expect(await notifications(d2, "")).toHaveLength(1)
    const firing = (await d2.json("/v1/alerts?state=firing")).alerts
    expect(firing.map((a: any) => a.id)).toEqual([ok.json().alertId])
  })

  it("stores a backlog of 2-day-old 401s read from the beginning of a file, but pages nobody for it", async () => {
    const hook = await receiver()
    const dir = newDir()
    const old = Date.now() - 2 * 86_400_000
    const lines = Array.from({ length: 6 }, (_, i) => {
      const at = new Date(old + i * 60_000).toISOString()
      return i % 2 === 0
        ? `${at} ERROR chat.client - request_id=req-old-${i} HTTP 401 {"code":401,"message":"Invalid token","data":null}`
        : `${at} INFO http - GET /api/items/${i} 200 3ms`
    })
    fs.writeFileSync(path.join(dir, "logs/app.log"), lines.join("\n") + "\n")
    // a marker rule that fires and resolves within seconds: proof that alerting ran after the backlog
    const d = await daemon(dir, baseConfig(dir, hook, { rules: [{ name: "quota-exhausted", window: "5s", resolveAfter: "1s" }] }))

    const stored = await waitFor("the backlog stored and every line read", async () => {
      const e = (await d.json("/v1/events?since=3d&category=auth_key")).events
      const report = await d.json("/v1/report?since=3d")
      return e.length === 3 && report.ingest.linesRead === 6 ? e : undefined
    }, WAIT)
    expect(stored.map((e: any) => e.occurredAt).sort()).toEqual([0, 2, 4].map((i) => new Date(old + i * 60_000).toISOString()))

    // the marker: a quota failure now fires quota-exhausted, which resolves on a later evaluation
    await post(d, { status: 402, model: M1, service: "chat-api", body: svc(30001, "Sorry, your account balance is insufficient") })
    await waitFor("the marker alert firing and then resolved", () => alertsFor(hook, "quota-exhausted", "resolved").length === 1, WAIT)
    expect(await notifications(d, "state=pending")).toEqual([])

    expect(alertsFor(hook, "api-key-invalid")).toEqual([])
    expect(hook.received.map((x) => `${x.json().kind}:${x.json().rule}:${x.json().status}`)).toEqual(["alert:quota-exhausted:firing", "alert:quota-exhausted:resolved"])
    expect(((await d.json("/v1/alerts")).alerts as any[]).map((a) => a.rule)).toEqual(["quota-exhausted"])
    expect(await metric(d, /^faultline_alerts_firing\{rule="api-key-invalid"\}/)).toBe(0)
  })

  it("mutes a silenced alert: recorded with a muted notification, sent once the silence is expired", async () => {
    const hook = await receiver()
    const dir = newDir()
    const d = await daemon(dir, baseConfig(dir, hook))

    const r = await d.fetch("/v1/silences", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ matchers: [{ label: "alertname", value: "api-key-invalid" }], duration: "1h", comment: "rotating the key", createdBy: "oncall" })
    })
    const silence = JSON.parse(await r.text())
    expect(r.status, JSON.stringify(silence)).toBe(201)
    expect(silence).toMatchObject({ state: "active", comment: "rotating the key", createdBy: "oncall", matchers: [{ label: "alertname", value: "api-key-invalid", isRegex: false }] })
    expect(Date.parse(silence.endsAt) - Date.parse(silence.startsAt)).toBe(3_600_000)
    expect((await d.json("/v1/silences")).silences.map((s: any) => s.id)).toEqual([silence.id])

    await post(d, invalidKey())
    const [alert] = (await d.json("/v1/alerts?state=firing")).alerts
    expect(alert).toMatchObject({ rule: "api-key-invalid", state: "firing", silencedBy: silence.id, count: 1 })
    expect(alert.notifications).toHaveLength(1)
    expect(alert.notifications[0]).toMatchObject({ receiver: "hook", reason: "firing", state: "muted", silenceId: silence.id, attemptCount: 0 })
    expect((await notifications(d, "state=muted")).map((n) => n.id)).toEqual([alert.notifications[0].id])

    // a marker that is not silenced: once its notifications arrived, a muted one would have too
    await post(d, serverError("1c0d9e8f7a6b5c4d"))
    await waitFor("the server-errors alert and the ticket delivered", async () =>
      alertsFor(hook, "server-errors", "firing").length === 1 && ticketsFor(hook, "open").length === 1 && (await notifications(d, "state=pending")).length === 0, WAIT)
    expect(alertsFor(hook, "api-key-invalid")).toEqual([])
    expect(await metric(d, /^faultline_notifications_total\{receiver="hook",outcome="muted"\}/)).toBe(1)

    // expire the silence: the alert still fires and was never sent, so it is sent now
    const del = await d.fetch(`/v1/silences/${silence.id}`, { method: "DELETE" })
    expect(del.status).toBe(200)
    expect(JSON.parse(await del.text())).toMatchObject({ id: silence.id, state: "expired" })
    const [sent] = await waitFor("the firing notification after the silence", () => {
      const l = alertsFor(hook, "api-key-invalid", "firing")
      return l.length > 0 ? l : undefined
    }, WAIT)
    expectSigned(sent!)
    expect(sent!.json()).toMatchObject({ alertId: alert.id, status: "firing", repeat: false })
    const after = (await d.json("/v1/alerts?state=firing")).alerts.find((a: any) => a.id === alert.id)
    expect(after.silencedBy).toBeNull()
  })
})

// ---------------------------------------------------------------------------------------------
// the real Prometheus Alertmanager

if (amSkip) console.warn(`alerting.test.ts: Alertmanager test skipped: ${AM_BIN} is missing (apt-get install -y prometheus-alertmanager); under CI this fails instead`)

/** Alertmanager on a free loopback port, stopped with the test's other children. */
const startAm = async (): Promise<string> => {
  const am = await startAlertmanager()
  children.push(am.child)
  return am.url
}

describe.skipIf(amSkip)("alerting to a real Prometheus Alertmanager", { timeout: 150_000 }, () => {
  it("shows the daemon's alerts in GET /api/v2/alerts with our labels and annotations", async () => {
    const am = await startAm()
    const hook = await receiver()
    const dir = newDir()
    const d = await daemon(
      dir,
      baseConfig(dir, hook, {
        receivers: [
          { name: "hook", type: "webhook", url: `${hook.url}/hook`, secret: SECRET },
          { name: "am", type: "alertmanager", url: am }
        ],
        defaultReceivers: ["hook", "am"]
      })
    )
    await post(d, [invalidKey(), { status: 400, model: M3, service: "image-api", endpoint: "/v1/images/generations", body: svc(20012, "Model does not exist. Please check it carefully.") }])

    const amAlerts = async () => (await (await fetch(`${am}/api/v2/alerts`)).json()) as AmAlert[]
    const list = await waitFor("both alerts in Alertmanager", async () => {
      const l = await amAlerts()
      const names = l.map((a) => a.labels.alertname).sort()
      return names.join(",") === "api-key-invalid,model-not-found" ? l : undefined
    }, WAIT)
    const ours = (await d.json("/v1/alerts?state=firing")).alerts as any[]
    const instance = `127.0.0.1:${d.port}`
    const key = list.find((a) => a.labels.alertname === "api-key-invalid")!
    expect(key.labels).toEqual({ alertname: "api-key-invalid", category: "auth_key", severity: "critical", instance })
    const mnf = list.find((a) => a.labels.alertname === "model-not-found")!
    expect(mnf.labels).toEqual({ alertname: "model-not-found", category: "model_not_found", severity: "warning", model: M3, instance })
    for (const [a, rule] of [[key, "api-key-invalid"], [mnf, "model-not-found"]] as const) {
      const mine = ours.find((x) => x.rule === rule)
      expect(a.annotations.summary).toMatch(new RegExp(`^${rule}: 1 `))
      expect(a.annotations.action).toBe(mine.action)
      expect(a.annotations.action.length).toBeGreaterThan(5)
      expect(a.generatorURL).toBe(`${d.url}/v1/alerts?state=firing`)
      expect(a.status.state).toBe("active")
      expect(Date.parse(a.endsAt)).toBeGreaterThan(Date.now())
      expect(Math.abs(Date.parse(a.startsAt) - Date.parse(mine.startsAt))).toBeLessThan(1000)
    }
    expect(mnf.annotations.summary).toContain(`model=${M3}`)
    // the same alerts went to the webhook receiver, and the outbox shows both deliveries per alert
    const delivered = await waitFor("every notification delivered", async () => {
      const l = await notifications(d, "state=delivered")
      return l.length >= 4 && (await notifications(d, "state=pending")).length === 0 ? l : undefined
    }, WAIT)
    // (Alertmanager gets a "refresh" copy every minute while the alert fires: left out here)
    const firsts = delivered.filter((n) => n.reason === "firing")
    expect(firsts.map((n) => `${n.receiver}:${n.groupKey}`).sort()).toEqual(
      ["am:api-key-invalid{}", `am:model-not-found{model=${JSON.stringify(M3)}}`, "hook:api-key-invalid{}", `hook:model-not-found{model=${JSON.stringify(M3)}}`]
    )
  })
})
