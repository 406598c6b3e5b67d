/**
 * Slack incoming webhook: `{text, blocks}` (Block Kit). `text` is the notification fallback;
 * the blocks show kind, category, rate-limit kind, model, service, count, action and a link.
 * Pure. Limits respected: header 150 chars, section text 3000, field 2000, at most 10 fields.
 */
import type { Receiver } from "../../config/Config.js"
import { percent } from "../../store/report-shape.js"
import { describe, type EncodeContext, type EncodedRequest, type Notification } from "../outbox.js"

const cut = (s: string, max: number): string => (s.length <= max ? s : `${s.slice(0, max - 1)}…`)
/** Slack mrkdwn needs &, < and > escaped in user text. */
const esc = (s: string): string => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")

const headline = (n: Notification): string => {
  if (n.kind === "alert") return `${n.status === "firing" ? (n.repeat ? "[FIRING, still]" : "[FIRING]") : "[RESOLVED]"} ${n.rule}`
  return `[TICKET ${n.status.toUpperCase()}] server error${n.ticket.model === null ? "" : ` on ${n.ticket.model}`}`
}

const field = (name: string, value: string | number | null): { type: "mrkdwn"; text: string } | null =>
  value === null || value === "" ? null : { type: "mrkdwn", text: cut(`*${name}*\n${esc(String(value))}`, 2000) }

export const encodeSlack = (n: Notification, receiver: Receiver, _ctx: EncodeContext): EncodedRequest => {
  const labels = n.labels
  const fields = [
    field("Kind", n.kind === "alert" ? `alert (${n.status})` : `ticket (${n.status})`),
    field("Category", n.category),
    field("Rate limit kind", labels.rateLimitKind ?? null),
    field("Model", n.kind === "ticket" ? n.ticket.model : labels.model ?? null),
    field("Service", n.kind === "ticket" ? n.ticket.service : labels.service ?? null),
    field(
      "Count",
      n.kind === "ticket"
        ? `${n.count} occurrence${n.count === 1 ? "" : "s"}`
        : n.calls !== null && n.failureRatio !== null
          ? `${n.count} of ${n.calls} calls in ${n.window}: ${percent(n.failureRatio)} (line ${percent(n.threshold)})`
          : `${n.count} in ${n.window} (threshold ${n.threshold})`
    ),
    field("Severity", n.severity)
  ].filter((f) => f !== null)
  const details: Array<string> = [`*Action:* ${esc(n.action)}`]
  if (n.kind === "ticket") {
    details.push(`*Diagnosis:* ${esc(n.ticket.diagnosis.summary)}`)
    details.push("```" + esc(n.ticket.diagnosis.curl) + "```")
  }
  const blocks = [
    { type: "header", text: { type: "plain_text", text: cut(headline(n), 150) } },
    { type: "section", text: { type: "mrkdwn", text: cut(esc(describe(n)), 3000) } },
    { type: "section", fields: fields.slice(0, 10) },
    { type: "section", text: { type: "mrkdwn", text: cut(details.join("\n"), 3000) } },
    { type: "context", elements: [{ type: "mrkdwn", text: cut(`<${n.link}|Open in faultline> · \`${esc(n.groupKey)}\``, 3000) }] }
  ]
  const body = JSON.stringify({ text: cut(`${headline(n)}: ${describe(n)}`, 3000), blocks })
  return { url: receiver.url, headers: { "content-type": "application/json" }, body }
}
