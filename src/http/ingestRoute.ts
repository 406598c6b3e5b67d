/**
 * `POST /v1/events` (CONTRACT section 6): tokens, optional HMAC, size and content-type checks,
 * then each record is decoded, parsed and classified; the accepted ones are committed in one
 * transaction. A bad record is rejected with its index and reason; the others are kept.
 */
import { Effect, Either, Runtime } from "effect"
import type * as http from "node:http"
import type { FailureEvent } from "../classify/Event.js"
import { classify } from "../classify/classify.js"
import { parseStructured } from "../parse/parse.js"
import { redact } from "../parse/redact.js"
import type { Metrics } from "../observe/metrics.js"
import { makeEvent } from "../sources/pipeline.js"
import { type IntakeApi, StoreUnavailable } from "../sources/Intake.js"
import { bodyFormatOf, checkCallsPost, checkRecord, decodeBody, type IngestRecord, isCallsPost, shipperTime } from "../sources/webhook/decode.js"
import { callOf } from "../parse/call.js"
import { providerOfHosts, providerOfName } from "../catalog/index.js"
import { type CallCount, type CallPost, CallTally, countedPosts, minuteOf } from "../sources/Batch.js"
import { checkTokens, verifyHmac } from "./auth.js"
import { readBody } from "./body.js"
import { errorBody, HttpFailure } from "./respond.js"

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
  /** Successful calls among the records (a structured `status` below 400, a raw line that shows one), plus the calls of `calls` posts: counted, not stored (CONTRACT section 6). */
  counted: number
  /** Other records that are not failed calls (ordinary log lines of a shipper). */
  ignored: number
  /** The first REJECTED_LISTED rejections; `rejectedCount` counts them all. */
  rejected: Array<{ index: number; error: string }>
  rejectedCount: number
}

/** Rejections listed in an answer, at most: a body of 500 k bad items is not echoed back item by item. */
export const REJECTED_LISTED = 100

/** Pure part: body text → events + per-record outcomes. */
export interface BodyOutcome {
  events: FailureEvent[]
  /** Successful calls among the records, counted per minute, service, model and provider. */
  calls: CallCount[]
  /** `{"calls": [...]}` items: counts kept by the application. */
  posts: CallPost[]
  counted: number
  ignored: number
  rejected: Array<{ index: number; error: string }>
  rejectedCount: number
}

export const eventsOfBody = (format: "json" | "ndjson", text: string, ingestedAt: string): BodyOutcome | HttpFailure => {
  const decoded = decodeBody(format, text)
  // reasons may quote the sender's input: they are redacted like everything else we answer
  if (decoded._tag === "BadJson") return new HttpFailure({ status: 400, code: "bad_json", message: redact(decoded.message) })
  const events: FailureEvent[] = []
  const rejected: Array<{ index: number; error: string }> = []
  let rejectedCount = 0
  const reject = (index: number, error: string): void => {
    if (rejectedCount++ < REJECTED_LISTED) rejected.push({ index, error: redact(error) })
  }
  let ignored = 0
  let counted = 0
  const calls = new CallTally()
  const posts: CallPost[] = []
  const ingestedMs = Date.parse(ingestedAt)
  for (const item of decoded.items) {
    if ("error" in item) {
      reject(item.index, item.error)
      continue
    }
    if (isCallsPost(item.value)) {
      const post = checkCallsPost(item.value)
      if (Either.isLeft(post)) reject(item.index, post.left)
      else posts.push(callPostOf(post.right))
      continue
    }
    const checked = checkRecord(item.value)
    if (Either.isLeft(checked)) {
      reject(item.index, checked.left)
      continue
    }
    const record = checked.right
    const parsed = parseStructured(record as Record<string, unknown>)
    if (parsed._tag === "Ignored") {
      // a structured record whose sender gives a status below 400 is a successful call; a raw
      // one (a shipper's log line) is one when its text shows it
      if (parsed.reason === "status < 400" && isStructuredCall(record)) {
        counted++
        const t = Date.parse(shipperTime(record) ?? "")
        calls.add(minuteOf(Number.isNaN(t) ? ingestedMs : t), record.service ?? null, record.model ?? null, structuredProvider(record), 1)
        continue
      }
      const raw = typeof record.raw === "string" ? record.raw : typeof record.log === "string" ? record.log : typeof record.message === "string" ? record.message : null
      const call = raw === null ? null : callOf(raw)
      if (call === null) ignored++
      else {
        counted++
        const t = call.occurredAt ?? Date.parse(shipperTime(record) ?? "")
        calls.add(minuteOf(Number.isNaN(t) ? ingestedMs : t), call.service ?? record.service ?? null, call.model ?? record.model ?? null, call.provider, 1)
      }
      continue
    }
    const failure = parsed.failure.occurredAt === null ? { ...parsed.failure, occurredAt: shipperTime(record) } : parsed.failure
    events.push(
      makeEvent(failure, parsed.sample, classify(failure), { source: "webhook", line: null, ingestedAt, id: record.id === undefined ? undefined : redact(record.id) })
    )
  }
  return { events, calls: calls.take(), posts, counted, ignored, rejected, rejectedCount }
}

/** The provider a structured record names (`provider`), or its endpoint's API host. */
const structuredProvider = (record: IngestRecord): string | null => {
  const named = (record as Record<string, unknown>)["provider"]
  if (typeof named === "string" && named.trim() !== "" && named.length <= 64) return providerOfName(named) ?? named.trim().toLowerCase()
  return typeof record.endpoint === "string" ? (providerOfHosts(record.endpoint)?.provider ?? null) : null
}

const callPostOf = (post: { readonly id?: string | undefined; readonly calls: ReadonlyArray<{ readonly minute: string; readonly service?: string | null | undefined; readonly model?: string | null | undefined; readonly provider?: string | null | undefined; readonly ok: number; readonly failed: number }> }): CallPost => {
  const tally = new CallTally()
  for (const c of post.calls) tally.add(minuteOf(Date.parse(c.minute)), c.service ?? null, c.model ?? null, c.provider?.trim().toLowerCase() || null, c.ok, c.failed)
  return { id: post.id === undefined ? null : redact(post.id), calls: tally.take() }
}

/** Calls a post adds. */
const postSize = (p: CallPost): number => p.calls.reduce((n, c) => n + c.ok + c.failed, 0)

const isStructuredCall = (record: object): boolean => {
  const r = record as Record<string, unknown>
  return r["raw"] === undefined && r["log"] === undefined && (typeof r["status"] === "number" || typeof r["status"] === "string" || typeof r["statusCode"] === "number")
}

/**
 * The ingest route as a plain node:http handler, in front of the Effect router (Server.ts):
 * it is the one hot route, and the Effect request pipeline (a fiber, the router, middleware,
 * the response encoder) cost more than everything faultline does with an event — see README,
 * "Why POST /v1/events bypasses the Effect router". Answers are the same as any route's:
 * JSON, errors as `{"error": {...}}`.
 */
export const makeIngestHandler = (opts: IngestOptions, runtime: Runtime.Runtime<never>) => {
  const log = Runtime.runFork(runtime)
  const fail = (res: http.ServerResponse, f: HttpFailure, outcome: string | null) => {
    if (outcome !== null) opts.metrics.webhookRequests.inc({ outcome })
    send(res, f.status, errorBody(f), f.headers)
  }

  const handle = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const verdict = checkTokens(opts.tokens, req.headers["authorization"], false)
    if (verdict !== "ok") {
      req.resume()
      const message = verdict === "missing" ? "send Authorization: Bearer <token>" : "the token is not valid"
      return fail(res, new HttpFailure({ status: 401, code: "unauthorized", message }), "unauthorized")
    }
    const format = bodyFormatOf(req.headers["content-type"])
    if (format === null) {
      req.resume()
      const message = `content type ${JSON.stringify(req.headers["content-type"] ?? "(none)")} is not readable: send application/json or application/x-ndjson`
      return fail(res, new HttpFailure({ status: 415, code: "unsupported_media_type", message }), "unsupported_media_type")
    }
    readBody(req, opts.maxBodyBytes, (raw) => {
      if (raw instanceof HttpFailure) return fail(res, raw, null)
      if (opts.hmacSecret !== null) {
        const check = verifyHmac(opts.hmacSecret, header(req, "x-faultline-timestamp"), header(req, "x-faultline-signature"), raw, Math.floor(Date.now() / 1000))
        if (!check.ok) return fail(res, new HttpFailure({ status: 401, code: "unauthorized", message: check.reason }), "bad_signature")
      }
      const out = eventsOfBody(format, raw.toString("utf8"), new Date().toISOString())
      if (out instanceof HttpFailure) return fail(res, out, "bad_json")
      if (out.events.length === 0 && out.ignored === 0 && out.counted === 0 && out.posts.length === 0 && out.rejected.length > 0) {
        const message = `no record could be read: ${out.rejected.slice(0, 3).map((r) => `[${r.index}] ${r.error}`).join("; ")}`
        return fail(res, new HttpFailure({ status: 400, code: "bad_request", message, extra: { accepted: 0, duplicates: 0, rejected: out.rejected, rejectedCount: out.rejectedCount } }), "rejected")
      }
      const batch = {
        source: "webhook",
        events: out.events,
        linesRead: out.events.length + out.ignored + out.counted,
        ignored: out.ignored + out.counted,
        checkpoint: null,
        calls: out.calls,
        callPosts: out.posts
      }
      const queued = opts.intake.submit(batch, (committed) => {
        if (committed instanceof StoreUnavailable) {
          log(Effect.logWarning("could not commit a batch; the sender is told to retry", { source: "webhook", error: committed.message }))
          return fail(res, unavailable(`the database is unavailable, retry later: ${committed.message}`), null)
        }
        opts.metrics.webhookRequests.inc({ outcome: "accepted" })
        // a calls post counts its calls; a retry of one already counted is a duplicate
        const posted = countedPosts(batch, committed)
        const summary: IngestSummary = {
          accepted: committed.inserted.length,
          duplicates: committed.duplicates + out.posts.length - posted.length,
          counted: out.counted + posted.reduce((n, p) => n + postSize(p), 0),
          ignored: out.ignored,
          rejected: out.rejected,
          rejectedCount: out.rejectedCount
        }
        send(res, 202, summary)
      })
      if (!queued) fail(res, unavailable("faultline is busy writing, retry later"), null)
    })
  }

  return (req: http.IncomingMessage, res: http.ServerResponse): void => {
    try {
      handle(req, res)
    } catch (e) {
      log(Effect.logError("request failed", e))
      send(res, 500, errorBody(new HttpFailure({ status: 500, code: "internal", message: "internal error" })))
    }
  }
}

const unavailable = (message: string) => new HttpFailure({ status: 503, code: "not_ready", message, headers: { "retry-after": "5" } })

const header = (req: http.IncomingMessage, name: string): string | undefined => {
  const v = req.headers[name]
  return Array.isArray(v) ? v[0] : v
}

const send = (res: http.ServerResponse, status: number, body: unknown, headers?: Record<string, string>): void => {
  if (res.headersSent || res.destroyed) return
  const text = JSON.stringify(body)
  res.writeHead(status, { ...headers, "content-type": "application/json", "content-length": Buffer.byteLength(text) })
  res.end(text)
}
