/**
 * The relay: delivers the outbox. One fiber per receiver (a slow or dead receiver never holds
 * back the others), at most `PER_RECEIVER_CONCURRENCY` requests in flight per receiver, rows of
 * one group (order key) strictly in order so a resolve never overtakes its trigger.
 *
 * Each attempt: encode the stored notification for the receiver (secrets unwrapped only here),
 * POST it with `X-Faultline-Delivery: <delivery id>` (the same on every attempt), cut it off
 * after the receiver's `timeout`, record the attempt and its consequence in one transaction.
 * A row is `delivered` only after a 2xx; a crash in between re-sends it with the same id.
 *
 * Retries: exponential backoff with jitter between `delivery.initialBackoff` and
 * `delivery.maxBackoff`, or the receiver's `Retry-After`; dead letter after `delivery.maxAge`
 * (a last attempt is made at that deadline). Whether a failure is retried is decided in
 * `judgeAttempt` and nowhere else.
 *
 * HTTP: @effect/platform's HttpClient (provide NodeHttpClient.layerUndici), trace propagation off.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type BetterSqlite3 from "better-sqlite3"
import { Context, Duration, Effect, Either, Layer, type Scope } from "effect"
import type { Config, Receiver } from "../config/Config.js"
import { formatDuration, parseDuration } from "../config/duration.js"
import { Database } from "../store/Database.js"
import { publicBase } from "./engine.js"
import { dueRows, type EncodeContext, type EncodedRequest, nextDueAt, type Notification, Outbox, type OutboxRow, recordAttempt } from "./outbox.js"
import { encodeAlertmanager } from "./receivers/alertmanager.js"
import { encodePagerDuty } from "./receivers/pagerduty.js"
import { encodeSlack } from "./receivers/slack.js"
import { encodeWebhook } from "./receivers/webhook.js"

export const PER_RECEIVER_CONCURRENCY = 4
const BATCH = 16
/** Longest idle wait of a receiver's fiber before it looks at the outbox again. */
const MAX_IDLE_MS = 1_000

// ---------------------------------------------------------------------------------------------
// Pure: encoding, retryability, backoff

export const encode = (n: Notification, receiver: Receiver, ctx: EncodeContext): EncodedRequest => {
  switch (receiver.type) {
    case "webhook":
      return encodeWebhook(n, receiver, ctx)
    case "slack":
      return encodeSlack(n, receiver, ctx)
    case "alertmanager":
      return encodeAlertmanager(n, receiver, ctx)
    case "pagerduty":
      return encodePagerDuty(n, receiver, ctx)
  }
}

export type AttemptResult =
  | { readonly _tag: "Response"; readonly status: number; readonly body: string; readonly retryAfter: string | null }
  | { readonly _tag: "TransportError"; readonly message: string }
  | { readonly _tag: "Timeout"; readonly afterMs: number }
  | { readonly _tag: "EncodeError"; readonly message: string }

export type Verdict =
  | { readonly _tag: "Delivered" }
  | { readonly _tag: "Retry"; readonly error: string; readonly retryAfterMs: number | null }
  | { readonly _tag: "Dead"; readonly error: string }

/** Slack answers these (with a 4xx, sometimes behind a proxy with another status): never retry. */
const SLACK_PERMANENT = /\b(invalid_payload|invalid_token|no_text|no_service|no_service_id|channel_not_found|channel_is_archived|action_prohibited|team_disabled|user_not_found|posting_to_general_channel_denied)\b/

/** `Retry-After` as delay-seconds or an HTTP date; null when absent or unreadable. */
export const parseRetryAfter = (value: string | null, now: number): number | null => {
  if (value === null) return null
  const v = value.trim()
  if (/^\d+$/.test(v)) return Number(v) * 1000
  const t = Date.parse(v)
  return Number.isNaN(t) ? null : Math.max(0, t - now)
}

const excerpt = (body: string): string => {
  const s = body.replace(/\s+/g, " ").trim()
  return s.length <= 200 ? s : `${s.slice(0, 199)}…`
}

/** The one function that decides whether a failed delivery is retried. */
export const judgeAttempt = (receiverType: Receiver["type"], r: AttemptResult, now: number): Verdict => {
  switch (r._tag) {
    case "EncodeError":
      return { _tag: "Dead", error: `cannot encode: ${r.message}` }
    case "Timeout":
      return { _tag: "Retry", error: `timeout after ${r.afterMs} ms`, retryAfterMs: null }
    case "TransportError":
      return { _tag: "Retry", error: r.message, retryAfterMs: null }
    case "Response": {
      const error = `HTTP ${r.status}${r.body === "" ? "" : `: ${excerpt(r.body)}`}`
      if (receiverType === "slack" && (r.status < 200 || r.status > 299) && SLACK_PERMANENT.test(r.body)) return { _tag: "Dead", error }
      if (r.status >= 200 && r.status <= 299) return { _tag: "Delivered" }
      if (r.status === 408 || r.status === 429 || r.status >= 500) return { _tag: "Retry", error, retryAfterMs: parseRetryAfter(r.retryAfter, now) }
      // other 4xx: the receiver refuses this request as it is; 1xx/3xx: not an answer we can act on
      return { _tag: "Dead", error }
    }
  }
}

/** Delay before attempt `attempt + 1`: initial × 2^(attempt-1), capped, "equal jitter" (½ fixed, ½ random). */
export const backoffDelay = (attempt: number, initialMs: number, maxMs: number, random: number): number => {
  const base = Math.min(maxMs, initialMs * 2 ** Math.min(Math.max(0, attempt - 1), 40))
  return Math.round(base / 2 + (base / 2) * random)
}

export interface DeliveryPolicy {
  readonly maxAgeMs: number
  readonly initialBackoffMs: number
  readonly maxBackoffMs: number
}

export const deliveryPolicy = (config: Config): DeliveryPolicy => ({
  maxAgeMs: parseDuration(config.delivery.maxAge) ?? 86_400_000,
  initialBackoffMs: parseDuration(config.delivery.initialBackoff) ?? 1_000,
  maxBackoffMs: parseDuration(config.delivery.maxBackoff) ?? 300_000
})

/** What becomes of the row after an attempt. */
export const settle = (
  v: Verdict,
  a: { readonly attempt: number; readonly now: number; readonly createdAt: number },
  policy: DeliveryPolicy,
  random: number
): { readonly outcome: "delivered" | "failed" | "dead"; readonly nextAttemptAt: number; readonly error: string | null } => {
  switch (v._tag) {
    case "Delivered":
      return { outcome: "delivered", nextAttemptAt: a.now, error: null }
    case "Dead":
      return { outcome: "dead", nextAttemptAt: a.now, error: v.error }
    case "Retry": {
      const deadline = a.createdAt + policy.maxAgeMs
      if (a.now >= deadline) return { outcome: "dead", nextAttemptAt: a.now, error: `${v.error} (gave up: retried for ${formatDuration(policy.maxAgeMs)})` }
      const delay = v.retryAfterMs ?? backoffDelay(a.attempt, policy.initialBackoffMs, policy.maxBackoffMs, random)
      return { outcome: "failed", nextAttemptAt: Math.min(a.now + delay, deadline), error: v.error }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The service

const describeTransport = (e: unknown): string => {
  // Never the URL: a Slack webhook URL is itself a secret.
  let c: unknown = (e as { cause?: unknown }).cause ?? e
  for (let i = 0; i < 3 && c !== null && typeof c === "object" && (c as { cause?: unknown }).cause !== undefined && (c as { code?: unknown }).code === undefined; i++) {
    c = (c as { cause: unknown }).cause
  }
  const code = (c as { code?: unknown })?.code
  const message = (c as { message?: unknown })?.message
  const m = typeof message === "string" ? message : ""
  const text = typeof code === "string" && !m.includes(code) ? `${code} ${m}` : m
  return `transport error: ${text.trim() || "unknown"}`
}

export interface RelayApi {
  /** Look at every receiver's outbox now (instead of at the next wake-up). */
  readonly wake: Effect.Effect<void>
}

export class Relay extends Context.Tag("faultline/Relay")<Relay, RelayApi>() {
  static readonly make = (config: Config): Effect.Effect<RelayApi, never, Database | Outbox | HttpClient.HttpClient | Scope.Scope> =>
    Effect.gen(function* () {
      const { db } = yield* Database
      const outbox = yield* Outbox
      const client = (yield* HttpClient.HttpClient).pipe(HttpClient.withTracerPropagation(false))
      const clock = yield* Effect.clock
      const random = yield* Effect.random
      const policy = deliveryPolicy(config)
      const { instance } = publicBase(config)

      abandonUnknownReceivers(db, config.receivers.map((r) => r.name), yield* clock.currentTimeMillis)

      const send = (req: EncodedRequest, deliveryId: string, timeoutMs: number): Effect.Effect<AttemptResult> =>
        client
          .execute(
            HttpClientRequest.post(req.url).pipe(
              HttpClientRequest.setHeaders({ ...req.headers, "user-agent": "faultline", "x-faultline-delivery": deliveryId }),
              HttpClientRequest.bodyText(req.body, "application/json")
            )
          )
          .pipe(
            Effect.flatMap((res) =>
              res.text.pipe(
                Effect.orElseSucceed(() => ""),
                Effect.map((body): AttemptResult => ({ _tag: "Response", status: res.status, body: body.slice(0, 2000), retryAfter: res.headers["retry-after"] ?? null }))
              )
            ),
            Effect.catchAll((e) => Effect.succeed<AttemptResult>({ _tag: "TransportError", message: describeTransport(e) })),
            Effect.timeoutTo({ duration: Duration.millis(timeoutMs), onTimeout: (): AttemptResult => ({ _tag: "Timeout", afterMs: timeoutMs }), onSuccess: (r) => r })
          )

      const deliver = (receiver: Receiver, row: OutboxRow) =>
        Effect.gen(function* () {
          const start = yield* clock.currentTimeMillis
          const encoded = Either.try(() => encode(JSON.parse(row.payload) as Notification, receiver, { deliveryId: row.id, now: start, instance }))
          const timeoutMs = parseDuration(receiver.timeout) ?? 10_000
          const result: AttemptResult = Either.isLeft(encoded)
            ? { _tag: "EncodeError", message: String((encoded.left as Error)?.message ?? encoded.left) }
            : yield* send(encoded.right, row.id, timeoutMs)
          const end = yield* clock.currentTimeMillis
          const attempt = row.attempts + 1
          const verdict = judgeAttempt(receiver.type, result, end)
          const s = settle(verdict, { attempt, now: end, createdAt: row.created_at }, policy, yield* random.next)
          yield* Effect.sync(() =>
            recordAttempt(db, {
              deliveryId: row.id,
              receiver: receiver.name,
              attempt,
              at: start,
              durationMs: end - start,
              statusCode: result._tag === "Response" ? result.status : null,
              error: s.error,
              outcome: s.outcome,
              nextAttemptAt: s.nextAttemptAt
            })
          )
          if (s.outcome !== "delivered") {
            const log = s.outcome === "dead" ? Effect.logError("notification is a dead letter") : Effect.logWarning("notification attempt failed")
            yield* log.pipe(
              Effect.annotateLogs({ receiver: receiver.name, deliveryId: row.id, attempt, error: s.error, nextAttemptAt: new Date(s.nextAttemptAt).toISOString() })
            )
          }
        }).pipe(Effect.catchAllCause((cause) => Effect.logError("notification delivery failed", cause)))

      const loop = (receiver: Receiver) =>
        Effect.gen(function* () {
          const now = yield* clock.currentTimeMillis
          const rows = dueRows(db, receiver.name, now, BATCH)
          if (rows.length > 0) {
            yield* Effect.forEach(rows, (row) => deliver(receiver, row), { concurrency: PER_RECEIVER_CONCURRENCY, discard: true })
            return
          }
          const next = nextDueAt(db, receiver.name)
          yield* outbox.waitForWork(receiver.name, next === null ? MAX_IDLE_MS : Math.min(MAX_IDLE_MS, Math.max(10, next - now)))
        }).pipe(
          Effect.catchAllCause((cause) => Effect.logError("relay loop failed", cause).pipe(Effect.zipRight(Effect.sleep(MAX_IDLE_MS)))),
          Effect.forever,
          Effect.annotateLogs({ receiver: receiver.name })
        )

      for (const r of config.receivers) yield* Effect.forkScoped(loop(r))
      return { wake: outbox.signal(config.receivers.map((r) => r.name)) }
    })

  /** Needs Database, Outbox and an HttpClient (NodeHttpClient.layerUndici). */
  static readonly layer = (config: Config): Layer.Layer<Relay, never, Database | Outbox | HttpClient.HttpClient> =>
    Layer.scoped(Relay, Relay.make(config))
}

/** Rows pending for a receiver that left the config are dead letters: nobody can deliver them. */
const abandonUnknownReceivers = (db: BetterSqlite3.Database, names: ReadonlyArray<string>, now: number): void => {
  db.prepare(
    `UPDATE outbox SET state = 'dead', next_attempt_at = ?, last_error = 'receiver ' || receiver || ' is no longer configured'
     WHERE state = 'pending' AND receiver NOT IN (SELECT value FROM json_each(?))`
  ).run(now, JSON.stringify(names))
}
