/**
 * PagerDuty Events API v2 (`POST https://events.pagerduty.com/v2/enqueue`, or the receiver's url):
 * `{routing_key, event_action: "trigger"|"resolve", dedup_key, payload, client, client_url}`.
 * `dedup_key` hashes the alert's group key (or `ticket:<fingerprint>`): the same on trigger and
 * resolve, 74 characters. A resolve carries no payload (the API ignores it). Pure; the routing key
 * is unwrapped here and nowhere else.
 */
import { Redacted } from "effect"
import { createHash } from "node:crypto"
import type { Severity } from "../../classify/Event.js"
import type { Receiver } from "../../config/Config.js"
import { describe, type EncodeContext, type EncodedRequest, type Notification } from "../outbox.js"

export const dedupKeyOf = (groupKey: string): string => `faultline-${createHash("sha256").update(groupKey).digest("hex")}`

/** PagerDuty severities are critical | error | warning | info; ours map onto the same names. */
export const pagerDutySeverity = (s: Severity): "critical" | "error" | "warning" | "info" =>
  s === "critical" ? "critical" : s === "warning" ? "warning" : "info"

/** The value of a field when every sample event has the same one (descriptive only: the dedup_key is the identity). */
const shared = (n: Notification, field: "model" | "service"): string | null => {
  const values = new Set(n.sampleEvents.map((e) => e[field]))
  const [only] = values
  return values.size === 1 && only !== undefined ? only : null
}

const cut = (s: string, max: number): string => (s.length <= max ? s : `${s.slice(0, max - 1)}…`)

export const encodePagerDuty = (n: Notification, receiver: Receiver, ctx: EncodeContext): EncodedRequest => {
  if (receiver.routingKey === null) throw new Error(`receiver ${receiver.name}: a pagerduty receiver needs a routingKey`)
  const trigger = n.status !== "resolved"
  const base = {
    routing_key: Redacted.value(receiver.routingKey),
    event_action: trigger ? ("trigger" as const) : ("resolve" as const),
    dedup_key: dedupKeyOf(n.groupKey)
  }
  const model = n.kind === "alert" ? (n.labels.model ?? shared(n, "model")) : n.ticket.model
  const service = n.kind === "alert" ? (n.labels.service ?? shared(n, "service")) : n.ticket.service
  const details =
    n.kind === "alert"
      ? {
          groupKey: n.groupKey, rule: n.rule, labels: n.labels, count: n.count, threshold: n.threshold, window: n.window,
          action: n.action, startsAt: n.startsAt, link: n.link, sampleEvents: n.sampleEvents.slice(0, 2).map((e) => ({ ...e, sample: cut(e.sample, 512) }))
        }
      : {
          groupKey: n.groupKey, ticketId: n.ticketId, fingerprint: n.fingerprint, count: n.count, action: n.action,
          diagnosis: n.ticket.diagnosis, link: n.link, firstSeen: n.ticket.firstSeen, lastSeen: n.ticket.lastSeen
        }
  const body = trigger
    ? {
        ...base,
        payload: {
          summary: cut(describe(n), 1024),
          source: ctx.instance,
          severity: pagerDutySeverity(n.severity),
          timestamp: n.kind === "alert" ? n.generatedAt : n.ticket.lastSeen,
          component: model ?? "faultline",
          group: service ?? n.category,
          class: n.kind === "alert" && n.labels.rateLimitKind ? `${n.category}/${n.labels.rateLimitKind}` : n.category,
          custom_details: details
        },
        client: "faultline",
        client_url: n.link
      }
    : base
  return { url: receiver.url, headers: { "content-type": "application/json" }, body: JSON.stringify(body) }
}
