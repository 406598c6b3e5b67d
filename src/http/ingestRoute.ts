/**
 * `POST /v1/events` (CONTRACT section 6): tokens, optional HMAC, size and content-type checks,
 * then each record is decoded, parsed and classified; the accepted ones are committed in one
 * transaction. A bad record is rejected with its index and reason; the others are kept.
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { Effect, Either } from "effect"
import type { FailureEvent } from "../classify/Event.js"
import { classify } from "../classify/classify.js"
import { parseStructured } from "../parse/parse.js"
import { redact } from "../parse/redact.js"
import type { Metrics } from "../observe/metrics.js"
import { makeEvent } from "../sources/pipeline.js"
import type { IntakeApi } from "../sources/Intake.js"
import { bodyFormatOf, checkRecord, decodeBody, shipperTime } from "../sources/webhook/decode.js"
import { checkTokens, verifyHmac } from "./auth.js"
import { readBody } from "./body.js"
import { HttpFailure, json } from "./respond.js"

export interface IngestOptions {
  readonly tokens: ReadonlyArray<string>
  readonly hmacSecret: string | null
  readonly maxBodyBytes: number
  readonly intake: IntakeApi
  readonly metrics: Metrics
}

export interface IngestSummary {
  accepted: number
  duplicates: number
  ignored: number
  rejected: Array<{ index: number; error: string }>
}

/** Pure part: body text → events + per-record outcomes. */
export const eventsOfBody = (
  format: "json" | "ndjson",
  text: string,
  ingestedAt: string
): { events: FailureEvent[]; ignored: number; rejected: Array<{ index: number; error: string }> } | HttpFailure => {
  const decoded = decodeBody(format, text)
  // reasons may quote the sender's input: they are redacted like everything else we answer
  if (decoded._tag === "BadJson") return new HttpFailure({ status: 400, code: "bad_json", message: redact(decoded.message) })
  const events: FailureEvent[] = []
  const rejected: Array<{ index: number; error: string }> = []
  let ignored = 0
  for (const item of decoded.items) {
    if ("error" in item) {
      rejected.push({ index: item.index, error: redact(item.error) })
      continue
    }
    const checked = checkRecord(item.value)
    if (Either.isLeft(checked)) {
      rejected.push({ index: item.index, error: redact(checked.left) })
      continue
    }
    const record = checked.right
    const parsed = parseStructured(record as Record<string, unknown>)
    if (parsed._tag === "Ignored") {
      ignored++
      continue
    }
    const failure = parsed.failure.occurredAt === null ? { ...parsed.failure, occurredAt: shipperTime(record) } : parsed.failure
    events.push(
      makeEvent(failure, parsed.sample, classify(failure), { source: "webhook", line: null, ingestedAt, id: record.id === undefined ? undefined : redact(record.id) })
    )
  }
  return { events, ignored, rejected }
}

export const ingestHandler = (opts: IngestOptions) =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const verdict = checkTokens(opts.tokens, request.headers["authorization"], false)
    if (verdict !== "ok") {
      opts.metrics.webhookRequests.inc({ outcome: "unauthorized" })
      return yield* new HttpFailure({
        status: 401,
        code: "unauthorized",
        message: verdict === "missing" ? "send Authorization: Bearer <token>" : "the token is not valid"
      })
    }
    const format = bodyFormatOf(request.headers["content-type"])
    if (format === null) {
      opts.metrics.webhookRequests.inc({ outcome: "unsupported_media_type" })
      return yield* new HttpFailure({
        status: 415,
        code: "unsupported_media_type",
        message: `content type ${JSON.stringify(request.headers["content-type"] ?? "(none)")} is not readable: send application/json or application/x-ndjson`
      })
    }
    const raw = yield* readBody(NodeHttpServerRequest.toIncomingMessage(request), opts.maxBodyBytes)
    if (opts.hmacSecret !== null) {
      const check = verifyHmac(opts.hmacSecret, request.headers["x-faultline-timestamp"], request.headers["x-faultline-signature"], raw, Math.floor(Date.now() / 1000))
      if (!check.ok) {
        opts.metrics.webhookRequests.inc({ outcome: "bad_signature" })
        return yield* new HttpFailure({ status: 401, code: "unauthorized", message: check.reason })
      }
    }
    const out = eventsOfBody(format, raw.toString("utf8"), new Date().toISOString())
    if (out instanceof HttpFailure) {
      opts.metrics.webhookRequests.inc({ outcome: "bad_json" })
      return yield* out
    }
    if (out.events.length === 0 && out.ignored === 0 && out.rejected.length > 0) {
      opts.metrics.webhookRequests.inc({ outcome: "rejected" })
      return yield* new HttpFailure({
        status: 400,
        code: "bad_request",
        message: `no record could be read: ${out.rejected.slice(0, 3).map((r) => `[${r.index}] ${r.error}`).join("; ")}`,
        extra: { accepted: 0, duplicates: 0, rejected: out.rejected }
      })
    }
    const committed = yield* opts.intake
      .commit({ source: "webhook", events: out.events, linesRead: out.events.length + out.ignored, ignored: out.ignored, checkpoint: null })
      .pipe(Effect.mapError((e) => new HttpFailure({ status: 503, code: "not_ready", message: `the database is unavailable, retry later: ${e.message}`, headers: { "retry-after": "5" } })))
    opts.metrics.webhookRequests.inc({ outcome: "accepted" })
    const summary: IngestSummary = {
      accepted: committed.inserted.length,
      duplicates: committed.duplicates,
      ignored: out.ignored,
      rejected: out.rejected
    }
    return json(summary, 202)
  })
