/**
 * faultline's own webhook: the notification as JSON (`kind`, `status`, `groupKey`, `rule`,
 * `labels`, `count`, `window`, `severity`, `action`, `startsAt`, `endsAt`, `sampleEvents`,
 * `link`, ...) plus its `deliveryId`; `X-Faultline-Signature: sha256=<hex HMAC-SHA256 of the
 * body>` when the receiver has a `secret`. Pure.
 */
import { Redacted } from "effect"
import { createHmac } from "node:crypto"
import type { Receiver } from "../../config/Config.js"
import type { EncodeContext, EncodedRequest, Notification } from "../outbox.js"

export const signBody = (secret: string, body: string): string => `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`

export const encodeWebhook = (n: Notification, receiver: Receiver, ctx: EncodeContext): EncodedRequest => {
  const body = JSON.stringify({ ...n, deliveryId: ctx.deliveryId })
  const headers: Record<string, string> = { "content-type": "application/json" }
  if (receiver.secret !== null) headers["x-faultline-signature"] = signBody(Redacted.value(receiver.secret), body)
  return { url: receiver.url, headers, body }
}
