/**
 * Prometheus Alertmanager: `POST <url>/api/v2/alerts` with a JSON array of one alert whose
 * labels carry the group's identity (alertname, category, rateLimitKind, model, service,
 * severity, instance, plus any other group label), annotations `summary` and `action`,
 * `startsAt`, `endsAt` and `generatorURL`. Pure.
 *
 * While firing, `endsAt` is `now + AM_FIRING_TTL`: the engine re-sends the alert every
 * `AM_REFRESH_EVERY`, so Alertmanager keeps it active while faultline lives and lets it expire
 * on its own if faultline stops. On resolve `endsAt` is the resolution time.
 */
import type { Receiver } from "../../config/Config.js"
import { describe, type EncodeContext, type EncodedRequest, type Notification } from "../outbox.js"

export const AM_REFRESH_EVERY = 60_000
export const AM_FIRING_TTL = 5 * AM_REFRESH_EVERY

export const alertmanagerUrl = (url: string): string => {
  const base = url.replace(/\/+$/, "")
  return base.endsWith("/api/v2/alerts") ? base : `${base}/api/v2/alerts`
}

export const encodeAlertmanager = (n: Notification, receiver: Receiver, ctx: EncodeContext): EncodedRequest => {
  const raw: Record<string, string | null | undefined> =
    n.kind === "alert"
      ? { ...n.labels, alertname: n.rule, category: n.category, severity: n.severity }
      : {
          alertname: "server-error-ticket",
          category: n.category,
          severity: n.severity,
          model: n.ticket.model,
          service: n.ticket.service,
          fingerprint: n.fingerprint
        }
  raw.instance = ctx.instance
  // Alertmanager treats an empty label as absent: leave out what we do not know.
  const labels = Object.fromEntries(Object.entries(raw).filter((e): e is [string, string] => typeof e[1] === "string" && e[1] !== ""))
  const endsAt = n.endsAt ?? (n.status === "resolved" ? new Date(ctx.now).toISOString() : new Date(ctx.now + AM_FIRING_TTL).toISOString())
  const alert = {
    labels,
    annotations: { summary: describe(n), action: n.action },
    startsAt: n.startsAt,
    endsAt,
    generatorURL: n.link
  }
  return { url: alertmanagerUrl(receiver.url), headers: { "content-type": "application/json" }, body: JSON.stringify([alert]) }
}
