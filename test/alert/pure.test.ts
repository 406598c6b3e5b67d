/** The pure cores of alerting: rules, decisions, silences, payload encoders, retryability, diagnosis. */
import { Either, Redacted } from "effect"
import { createHmac } from "node:crypto"
import { describe, expect, it } from "vitest"
import { decide, silenceMatches } from "../../src/alert/engine.js"
import { iso as dbInstant, type AlertNotification, type TicketNotification } from "../../src/alert/outbox.js"
import { alertmanagerUrl, encodeAlertmanager } from "../../src/alert/receivers/alertmanager.js"
import { dedupKeyOf, encodePagerDuty, pagerDutySeverity } from "../../src/alert/receivers/pagerduty.js"
import { encodeSlack } from "../../src/alert/receivers/slack.js"
import { encodeWebhook } from "../../src/alert/receivers/webhook.js"
import { backoffDelay, judgeAttempt, parseRetryAfter, settle } from "../../src/alert/relay.js"
import { builtinRules, eventGroupKeyOf, groupKeyOf, groupLabelsOf, resolveRules, ruleMatches, type Rule } from "../../src/alert/rules.js"
import { baseUrlOf, buildDiagnosis, formatDiagnosis, PROXY_HINT } from "../../src/ticket/diagnosis.js"
import { config, event, iso, T0 } from "./helpers.js"

const rules = (specs: Parameters<typeof resolveRules>[0] = []) => Either.getOrThrow(resolveRules(specs))
const rule = (name: string, specs: Parameters<typeof resolveRules>[0] = []): Rule => rules(specs).find((r) => r.name === name)!

describe("rules", () => {
  it("has the built-in rules of CONTRACT section 7 with their defaults", () => {
    const rs = rules()
    expect(rs.map((r) => [r.name, r.category, r.threshold, r.window, r.groupBy, r.severity])).toEqual([
      ["api-key-invalid", "auth_key", 1, "5m", [], "critical"],
      ["quota-exhausted", "quota", 1, "5m", [], "critical"],
      ["realname-auth-required", "auth_realname", 1, "5m", ["model"], "warning"],
      ["permission-denied", "permission", 1, "5m", [], "warning"],
      ["model-not-found", "model_not_found", 1, "5m", ["model"], "warning"],
      ["rate-limited", "rate_limit", 20, "1m", ["model", "rateLimitKind"], "warning"],
      ["daily-limit-reached", "rate_limit", 1, "5m", [], "critical"],
      ["overloaded", "overload", 10, "5m", ["model"], "warning"],
      ["server-errors", "server_error", 1, "5m", [], "critical"]
    ])
    for (const r of rs) {
      expect(r.repeatIntervalMs).toBe(4 * 3_600_000)
      expect(r.resolveAfterMs).toBe(10 * 60_000)
      expect(r.receivers).toBeNull()
    }
    expect(rule("daily-limit-reached").rateLimitKinds).toEqual(["RPD", "TPD", "IPD"])
    expect(builtinRules).toHaveLength(9)
  })

  it("overrides fields by name, disables, adds, and rejects a new rule without category", () => {
    const rs = rules([
      { name: "rate-limited", threshold: 50, window: "2m", repeatInterval: "1h", receivers: ["oncall"] },
      { name: "overloaded", disabled: true },
      { name: "invalid-requests", category: "invalid_request", threshold: 100, window: "10m", groupBy: ["service", "model"] }
    ])
    const rl = rs.find((r) => r.name === "rate-limited")!
    expect([rl.threshold, rl.windowMs, rl.repeatIntervalMs, rl.groupBy, rl.receivers]).toEqual([50, 120_000, 3_600_000, ["model", "rateLimitKind"], ["oncall"]])
    expect(rs.find((r) => r.name === "overloaded")).toBeUndefined()
    const added = rs.find((r) => r.name === "invalid-requests")!
    expect([added.category, added.severity, added.groupBy]).toEqual(["invalid_request", "info", ["model", "service"]])
    const bad = resolveRules([{ name: "mystery", threshold: 3 }])
    expect(Either.isLeft(bad) && bad.left.message).toContain('"mystery"')
  })

  it("matches by category and kind, and builds a stable group key", () => {
    const daily = rule("daily-limit-reached")
    expect(ruleMatches(daily, event({ category: "rate_limit", rateLimitKind: "TPD" }))).toBe(true)
    expect(ruleMatches(daily, event({ category: "rate_limit", rateLimitKind: "TPM" }))).toBe(false)
    const rl = rule("rate-limited")
    const e = event({ category: "rate_limit", rateLimitKind: "RPM", model: "m1" })
    const labels = groupLabelsOf(rl, e)
    expect(labels).toEqual({ model: "m1", rateLimitKind: "RPM" })
    expect(groupKeyOf("rate-limited", labels)).toBe('rate-limited{model="m1",rateLimitKind="RPM"}')
    expect(groupKeyOf("rate-limited", { rateLimitKind: "RPM", model: "m1" })).toBe(groupKeyOf("rate-limited", labels))
    expect(groupKeyOf("x", { model: null })).toBe("x{model=null}")
  })

  it("keys an event's group directly as it keys its labels", () => {
    const events = [
      event({ category: "rate_limit", rateLimitKind: "RPM", model: "m1" }),
      event({ category: "rate_limit", rateLimitKind: "TPD", model: null, service: 'chat "api"' }),
      event({ category: "server_error", status: 500, code: 50500, model: "m\u00e9" })
    ]
    const all = [...rules(), rule("by-everything", [{ name: "by-everything", category: "rate_limit", groupBy: ["service", "model", "rateLimitKind", "status", "code"] }])]
    for (const r of all) {
      for (const e of events) expect(eventGroupKeyOf(r, e)).toBe(groupKeyOf(r.name, groupLabelsOf(r, e)))
    }
  })
})

describe("decide", () => {
  const r = rule("overloaded", [{ name: "overloaded", threshold: 3, window: "5m", repeatInterval: "30m", resolveAfter: "10m" }])
  const firing = { notified: true, lastNotifiedAt: T0, belowSince: null, lastEventAt: T0 }
  it.each([
    ["below threshold, no alert", null, 2, T0, false, { _tag: "None" }],
    ["threshold reached", null, 3, T0, false, { _tag: "Fire" }],
    ["still above, repeat not due", firing, 5, T0 + 29 * 60_000, false, { _tag: "Keep", notify: null, belowSince: null }],
    ["still above, repeat due", firing, 5, T0 + 30 * 60_000, false, { _tag: "Keep", notify: "repeat", belowSince: null }],
    ["repeat due but muted: recorded as muted", firing, 5, T0 + 30 * 60_000, true, { _tag: "Keep", notify: "repeat", belowSince: null }],
    ["fired under a silence that has ended", { ...firing, notified: false }, 5, T0 + 60_000, false, { _tag: "Keep", notify: "firing", belowSince: null }],
    ["fired under a silence still active", { ...firing, notified: false }, 5, T0 + 60_000, true, { _tag: "Keep", notify: null, belowSince: null }],
    ["below since the last event left the window", firing, 0, T0 + 6 * 60_000, false, { _tag: "Keep", notify: null, belowSince: T0 + 5 * 60_000 }],
    ["below for resolveAfter", { ...firing, belowSince: T0 + 5 * 60_000 }, 0, T0 + 15 * 60_000, false, { _tag: "Resolve" }],
    ["below, not yet resolveAfter", { ...firing, belowSince: T0 + 5 * 60_000 }, 2, T0 + 14 * 60_000, false, { _tag: "Keep", notify: null, belowSince: T0 + 5 * 60_000 }]
  ] as const)("%s", (_name, alert, count, now, muted, expected) => {
    expect(decide(r, now, count, alert, muted)).toEqual(expected)
  })
})

describe("silences", () => {
  const labels = { alertname: "rate-limited", category: "rate_limit", severity: "warning", model: "Qwen/Qwen2.5-7B-Instruct", rateLimitKind: "TPM" }
  it.each([
    [[{ label: "alertname", value: "rate-limited", isRegex: false }], true],
    [[{ label: "model", value: "Qwen/.*", isRegex: true }], true],
    [[{ label: "model", value: "Qwen", isRegex: true }], false],
    [[{ label: "alertname", value: "rate-limited", isRegex: false }, { label: "rateLimitKind", value: "TPD", isRegex: false }], false],
    [[{ label: "service", value: "", isRegex: false }], true],
    [[{ label: "constructor", value: "", isRegex: false }], true],
    [[{ label: "toString", value: ".+", isRegex: true }], false],
    // anchored and case-sensitive, as in Alertmanager; a pattern refused today matches nothing
    [[{ label: "model", value: "qwen/.*", isRegex: true }], false],
    [[{ label: "model", value: "(Q+)+wen.*", isRegex: true }], false],
    [[], false]
  ])("%j → %s", (matchers, expected) => {
    expect(silenceMatches(labels, matchers)).toBe(expected)
  })
})

const alertN = (over: Partial<AlertNotification> = {}): AlertNotification => ({
  kind: "alert",
  status: "firing",
  notificationId: "ntf_1",
  repeat: false,
  alertId: "alr_1",
  groupKey: 'rate-limited{model="Qwen/Qwen2.5-7B-Instruct",rateLimitKind="TPM"}',
  rule: "rate-limited",
  category: "rate_limit",
  labels: { alertname: "rate-limited", category: "rate_limit", severity: "warning", model: "Qwen/Qwen2.5-7B-Instruct", rateLimitKind: "TPM" },
  count: 23,
  threshold: 20,
  calls: null,
  failureRatio: null,
  window: "1m",
  severity: "warning",
  action: "Slow down or wait: the tokens-per-minute limit was hit.",
  startsAt: iso(T0),
  endsAt: null,
  sampleEvents: [event()],
  link: "http://127.0.0.1:8787/v1/alerts?state=firing",
  generatedAt: iso(T0),
  ...over
})

const ticketN = (status: TicketNotification["status"]): TicketNotification => {
  const e = event({ category: "server_error" })
  const ticket = {
    id: "tkt_1", fingerprint: e.fingerprint, state: status === "resolved" ? ("resolved" as const) : ("open" as const), count: 2,
    firstSeen: iso(T0), lastSeen: iso(T0 + 1000), reopenedCount: 0, model: e.model, service: e.service, status: 500, code: 50500,
    message: "Internal server error", models: [{ model: e.model!, count: 2 }], services: [{ service: e.service!, count: 2 }], provider: null, providers: [], group: {},
    sample: e.sample, diagnosis: buildDiagnosis(e, { otherModel: null, otherModelsAffected: [] }),
    openedAt: iso(T0), acknowledgedAt: null, resolvedAt: status === "resolved" ? iso(T0 + 5000) : null, eventId: e.id
  }
  return {
    kind: "ticket", status, notificationId: "ntf_2", ticketId: "tkt_1", fingerprint: e.fingerprint, groupKey: `ticket:${e.fingerprint}`,
    category: "server_error", labels: { alertname: "server-error-ticket", model: e.model }, count: 2, severity: "critical", action: e.action,
    startsAt: iso(T0), endsAt: ticket.resolvedAt, ticket, sampleEvents: [e], link: "http://x/v1/tickets?state=open", generatedAt: iso(T0)
  }
}

const cfg = config({
  receivers: [
    { name: "hook", type: "webhook", url: "http://127.0.0.1:9/hook", secret: "s3cret" },
    { name: "plain", type: "webhook", url: "http://127.0.0.1:9/plain" },
    { name: "slack", type: "slack", url: "https://hooks.slack.com/services/T000/B000/XXXX" },
    { name: "am", type: "alertmanager", url: "http://127.0.0.1:9093/" },
    { name: "pd", type: "pagerduty", url: "https://events.pagerduty.com/v2/enqueue", routingKey: "R0UTINGKEY0123456789012345678901" }
  ]
})
const recv = (name: string) => cfg.receivers.find((r) => r.name === name)!
const ctx = { deliveryId: "dlv_1", now: T0 + 10_000, instance: "127.0.0.1:8787" }

describe("webhook encoder", () => {
  it("sends faultline's JSON with a verifiable HMAC signature when a secret is set", () => {
    const req = encodeWebhook(alertN(), recv("hook"), ctx)
    const body = JSON.parse(req.body)
    for (const k of ["kind", "status", "groupKey", "rule", "labels", "count", "window", "severity", "action", "startsAt", "endsAt", "sampleEvents", "link"]) {
      expect(body).toHaveProperty(k)
    }
    expect(body.deliveryId).toBe("dlv_1")
    expect(req.headers["x-faultline-signature"]).toBe(`sha256=${createHmac("sha256", "s3cret").update(req.body).digest("hex")}`)
    expect(encodeWebhook(alertN(), recv("plain"), ctx).headers["x-faultline-signature"]).toBeUndefined()
    // the secret is Redacted in the config: printing the receiver does not show it
    expect(String(recv("hook").secret)).not.toContain("s3cret")
    expect(Redacted.isRedacted(recv("hook").secret)).toBe(true)
  })
})

describe("slack encoder", () => {
  it("builds an incoming-webhook message: text plus header, section, fields and context blocks", () => {
    const body = JSON.parse(encodeSlack(alertN(), recv("slack"), ctx).body)
    expect(Object.keys(body).sort()).toEqual(["blocks", "text"])
    expect(body.text).toBe("[FIRING] rate-limited: rate-limited: 23 rate_limit failures in 1m (model=Qwen/Qwen2.5-7B-Instruct, rateLimitKind=TPM)")
    expect(body.blocks.map((b: { type: string }) => b.type)).toEqual(["header", "section", "section", "section", "context"])
    expect(body.blocks[0]).toEqual({ type: "header", text: { type: "plain_text", text: "[FIRING] rate-limited" } })
    const fields = body.blocks[2].fields.map((f: { type: string; text: string }) => {
      expect(f.type).toBe("mrkdwn")
      return f.text
    })
    expect(fields).toEqual([
      "*Kind*\nalert (firing)",
      "*Category*\nrate_limit",
      "*Rate limit kind*\nTPM",
      "*Model*\nQwen/Qwen2.5-7B-Instruct",
      "*Count*\n23 in 1m (threshold 20)",
      "*Severity*\nwarning"
    ])
    expect(body.blocks[3].text.text).toBe("*Action:* Slow down or wait: the tokens-per-minute limit was hit.")
    expect(body.blocks[4].elements[0].text).toContain("<http://127.0.0.1:8787/v1/alerts?state=firing|Open in faultline>")
    expect(body.blocks[0].text.text.length).toBeLessThanOrEqual(150)
  })

  it("escapes mrkdwn and shows a ticket with its reproduction command", () => {
    const body = JSON.parse(encodeSlack(ticketN("open"), recv("slack"), ctx).body)
    expect(body.blocks[0].text.text).toBe("[TICKET OPEN] server error on Qwen/Qwen2.5-7B-Instruct")
    expect(body.blocks[3].text.text).toContain("curl -i -X POST")
    expect(body.blocks[3].text.text).toContain("Bearer &lt;API_KEY&gt;")
  })
})

describe("pagerduty encoder", () => {
  it("triggers with the Events API v2 shape and resolves with the same dedup_key", () => {
    const trigger = JSON.parse(encodePagerDuty(alertN(), recv("pd"), ctx).body)
    expect(Object.keys(trigger).sort()).toEqual(["client", "client_url", "dedup_key", "event_action", "payload", "routing_key"])
    expect(trigger.routing_key).toBe("R0UTINGKEY0123456789012345678901")
    expect(trigger.event_action).toBe("trigger")
    expect(trigger.dedup_key.length).toBeLessThanOrEqual(255)
    expect(trigger.dedup_key).toBe(dedupKeyOf(alertN().groupKey))
    const p = trigger.payload
    expect(Object.keys(p).sort()).toEqual(["class", "component", "custom_details", "group", "severity", "source", "summary", "timestamp"])
    expect(p.summary.length).toBeLessThanOrEqual(1024)
    expect(p.summary).toBe("rate-limited: 23 rate_limit failures in 1m (model=Qwen/Qwen2.5-7B-Instruct, rateLimitKind=TPM)")
    expect(p.source).toBe("127.0.0.1:8787")
    expect(p.severity).toBe("warning")
    expect(p.timestamp).toBe(iso(T0))
    expect(p.component).toBe("Qwen/Qwen2.5-7B-Instruct")
    expect(p.group).toBe("chat-api") // from the sample events: every one has this service
    expect(p.class).toBe("rate_limit/TPM")
    expect(p.custom_details.groupKey).toBe(alertN().groupKey)

    const resolve = JSON.parse(encodePagerDuty(alertN({ status: "resolved", endsAt: iso(T0 + 60_000) }), recv("pd"), ctx).body)
    expect(resolve).toEqual({ routing_key: "R0UTINGKEY0123456789012345678901", event_action: "resolve", dedup_key: trigger.dedup_key })
  })

  it("maps severities and keeps summaries within 1024 characters", () => {
    expect([pagerDutySeverity("critical"), pagerDutySeverity("warning"), pagerDutySeverity("info")]).toEqual(["critical", "warning", "info"])
    const long = JSON.parse(encodePagerDuty(alertN({ labels: { alertname: "x", model: "m".repeat(3000) } }), recv("pd"), ctx).body)
    expect(long.payload.summary.length).toBe(1024)
    const t = ticketN("open")
    const tk = JSON.parse(encodePagerDuty(t, recv("pd"), ctx).body)
    expect(tk.payload.severity).toBe("critical")
    expect(tk.dedup_key).toBe(dedupKeyOf(`ticket:${t.fingerprint}`))
    expect(JSON.parse(encodePagerDuty(ticketN("resolved"), recv("pd"), ctx).body).dedup_key).toBe(tk.dedup_key)
    expect(dedupKeyOf("x".repeat(10_000)).length).toBeLessThanOrEqual(255)
  })
})

describe("alertmanager encoder", () => {
  it("posts one alert to /api/v2/alerts with our labels; endsAt in the future while firing, the resolution time on resolve", () => {
    expect(alertmanagerUrl("http://am:9093/")).toBe("http://am:9093/api/v2/alerts")
    expect(alertmanagerUrl("http://am:9093/api/v2/alerts")).toBe("http://am:9093/api/v2/alerts")
    const req = encodeAlertmanager(alertN(), recv("am"), ctx)
    expect(req.url).toBe("http://127.0.0.1:9093/api/v2/alerts")
    const [a] = JSON.parse(req.body)
    expect(a.labels).toEqual({
      alertname: "rate-limited", category: "rate_limit", severity: "warning", model: "Qwen/Qwen2.5-7B-Instruct", rateLimitKind: "TPM", instance: "127.0.0.1:8787"
    })
    expect(Object.keys(a.annotations).sort()).toEqual(["action", "summary"])
    expect(a.startsAt).toBe(iso(T0))
    expect(Date.parse(a.endsAt)).toBeGreaterThan(ctx.now + 60_000)
    expect(a.generatorURL).toBe(alertN().link)
    const [r] = JSON.parse(encodeAlertmanager(alertN({ status: "resolved", endsAt: iso(T0 + 60_000) }), recv("am"), ctx).body)
    expect(r.endsAt).toBe(iso(T0 + 60_000))
  })
})

describe("retryability (judgeAttempt) and backoff", () => {
  it.each([
    [200, "webhook", "Delivered"],
    [202, "pagerduty", "Delivered"],
    [400, "webhook", "Dead"],
    [401, "webhook", "Dead"],
    [404, "webhook", "Dead"],
    [408, "webhook", "Retry"],
    [429, "webhook", "Retry"],
    [500, "webhook", "Retry"],
    [503, "webhook", "Retry"],
    [302, "webhook", "Dead"]
  ] as const)("HTTP %i to %s → %s", (status, type, tag) => {
    expect(judgeAttempt(type, { _tag: "Response", status, body: "", retryAfter: null }, T0)._tag).toBe(tag)
  })

  it("slack's invalid_payload is permanent; timeouts and transport errors are retried", () => {
    expect(judgeAttempt("slack", { _tag: "Response", status: 400, body: "invalid_payload", retryAfter: null }, T0)._tag).toBe("Dead")
    expect(judgeAttempt("slack", { _tag: "Response", status: 500, body: "invalid_payload", retryAfter: null }, T0)._tag).toBe("Dead")
    expect(judgeAttempt("webhook", { _tag: "Timeout", afterMs: 10_000 }, T0)._tag).toBe("Retry")
    expect(judgeAttempt("webhook", { _tag: "TransportError", message: "ECONNREFUSED" }, T0)._tag).toBe("Retry")
    expect(judgeAttempt("pagerduty", { _tag: "EncodeError", message: "no routing key" }, T0)._tag).toBe("Dead")
  })

  it("honours Retry-After in seconds and as an HTTP date", () => {
    expect(parseRetryAfter("7", T0)).toBe(7000)
    expect(parseRetryAfter(new Date(T0 + 30_000).toUTCString(), T0)).toBe(30_000)
    expect(parseRetryAfter("soon", T0)).toBeNull()
    const v = judgeAttempt("webhook", { _tag: "Response", status: 429, body: "", retryAfter: "120" }, T0)
    expect(v).toMatchObject({ _tag: "Retry", retryAfterMs: 120_000 })
    const policy = { maxAgeMs: 86_400_000, initialBackoffMs: 1000, maxBackoffMs: 300_000 }
    expect(settle(v, { attempt: 1, now: T0, createdAt: T0 }, policy, 0.5)).toMatchObject({ outcome: "failed", nextAttemptAt: T0 + 120_000 })
  })

  it("backs off exponentially with jitter, capped, and gives up after maxAge", () => {
    expect([1, 2, 3, 4].map((n) => backoffDelay(n, 1000, 300_000, 1))).toEqual([1000, 2000, 4000, 8000])
    expect([1, 2, 3, 4].map((n) => backoffDelay(n, 1000, 300_000, 0))).toEqual([500, 1000, 2000, 4000])
    expect(backoffDelay(30, 1000, 300_000, 1)).toBe(300_000)
    const policy = { maxAgeMs: 3_600_000, initialBackoffMs: 1000, maxBackoffMs: 300_000 }
    const retry = { _tag: "Retry", error: "HTTP 503", retryAfterMs: null } as const
    expect(settle(retry, { attempt: 3, now: T0 + 3_599_000, createdAt: T0 }, policy, 1)).toMatchObject({ outcome: "failed", nextAttemptAt: T0 + 3_600_000 })
    expect(settle(retry, { attempt: 4, now: T0 + 3_600_000, createdAt: T0 }, policy, 1)).toMatchObject({ outcome: "dead" })
  })
})

describe("diagnosis (pure)", () => {
  it("reproduces the chat completion request with curl -i, keeps the model, and offers another one", () => {
    const e = event({ category: "server_error", model: "deepseek-ai/DeepSeek-V3", stream: true, endpoint: "https://user:pw@api.example.com/v1/chat/completions?key=x" })
    const d = buildDiagnosis(e, { otherModel: "Qwen/Qwen2.5-7B-Instruct", otherModelsAffected: ["THUDM/glm-4-9b-chat"] })
    expect(d.summary).toBe('HTTP 500, code 50500, message "Internal server error"')
    expect(d.curl).toBe(
      [
        "curl -i -N -X POST 'https://api.example.com/v1/chat/completions'",
        "-H 'accept: application/json'",
        "-H 'authorization: Bearer <API_KEY>'",
        "-H 'content-type: application/json'",
        `-d '{"model":"deepseek-ai/DeepSeek-V3","messages":[{"role":"user","content":"ping"}],"max_tokens":16,"stream":true}'`
      ].join(" \\\n  ")
    )
    expect(d.curlOtherModel).toContain(`"model":"Qwen/Qwen2.5-7B-Instruct"`)
    expect(d.otherModelsAffected).toEqual(["THUDM/glm-4-9b-chat"])
    expect(d.hints).toEqual([e.action])
  })

  it("uses placeholders without a full URL or a known good model, and gives the proxy hint for transport and non-JSON bodies", () => {
    const t = buildDiagnosis(event({ category: "transport", endpoint: "/v1/chat/completions", model: "it's" }), { otherModel: null, otherModelsAffected: [] })
    expect(t.curl).toContain("'<BASE_URL>/v1/chat/completions'")
    expect(t.curl).toContain(`"model":"it'\\''s"`)
    expect(t.curlOtherModel).toContain(`"model":"<VALID_MODEL>"`)
    expect(t.curl).not.toContain("stream")
    expect(t.summary).toContain("no HTTP status")
    expect(t.hints).toContain(PROXY_HINT)
    const html = buildDiagnosis(event({ category: "overload", bodyNotJson: true }), { otherModel: null, otherModelsAffected: [] })
    expect(html.hints).toEqual([event({ category: "overload" }).action, PROXY_HINT])
    expect(baseUrlOf("https://gw.example.com/openai/v1/chat/completions")).toBe("https://gw.example.com/openai")
    expect(baseUrlOf(null)).toBe("<BASE_URL>")
    const text = formatDiagnosis({ event: event({ category: "transport" }), diagnosis: t })
    expect(text).toContain("1. Status, code and message")
    expect(text).toContain("curl -i")
    expect(text).toContain(PROXY_HINT)
  })
})

describe("instants of the database", () => {
  it("an instant past what a Date holds (a silence stored before durations were bounded) is clamped, not thrown", () => {
    expect(dbInstant(99999999 * 86_400_000 + Date.now())).toBe("+275760-09-13T00:00:00.000Z")
    expect(dbInstant(null)).toBeNull()
    expect(dbInstant(0)).toBe("1970-01-01T00:00:00.000Z")
  })
})
