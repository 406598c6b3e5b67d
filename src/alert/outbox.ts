/**
 * The notification outbox (CONTRACT section 7, "Delivery is durable"): notifications are rows
 * written in the transaction that decided them, delivered later by the relay, every attempt
 * recorded. The payload stored is receiver-neutral; each receiver encodes it when it is sent,
 * so secrets (routing keys, HMAC keys) never reach the database.
 *
 * Plain functions over the better-sqlite3 handle (called inside the callers' transactions),
 * plus the `Outbox` service that wakes the relay when rows were added.
 */
import { percent } from "../store/report-shape.js"
import type BetterSqlite3 from "better-sqlite3"
import { Context, Effect, Layer, Option, Queue } from "effect"
import { randomBytes } from "node:crypto"
import type { Category, FailureEvent, Severity } from "../classify/Event.js"
import { statement } from "../store/Database.js"
import { encodeCursor } from "../store/cursor.js"
import type { Config } from "../config/Config.js"
import type { Ticket } from "../ticket/Ticket.js"

// ---------------------------------------------------------------------------------------------
// The notification model (what the outbox stores, what the webhook receiver sends as it is)

/** An event as shown in notifications: the stored event with its raw sample cut to 1 KiB. */
export type SampleEvent = FailureEvent

export const SAMPLE_EVENTS = 5

export const sampleEventOf = (e: FailureEvent): SampleEvent =>
  e.sample.length <= 1024 ? e : { ...e, sample: `${e.sample.slice(0, 1023)}…` }

export interface AlertNotification {
  readonly kind: "alert"
  readonly status: "firing" | "resolved"
  readonly notificationId: string
  /** true for a repeat (or a refresh) of an alert already notified as firing. */
  readonly repeat: boolean
  readonly alertId: string
  readonly groupKey: string
  readonly rule: string
  /** `any` for a ratio or slo rule that counts every category. */
  readonly category: Category | "any"
  readonly labels: Readonly<Record<string, string | null>>
  readonly count: number
  readonly threshold: number
  /** A ratio or slo rule: the group's calls in the window and failures / calls; null for a count rule. */
  readonly calls: number | null
  readonly failureRatio: number | null
  readonly window: string
  readonly severity: Severity
  readonly action: string
  readonly startsAt: string
  readonly endsAt: string | null
  readonly sampleEvents: ReadonlyArray<SampleEvent>
  readonly link: string
  /** When the decision was taken. */
  readonly generatedAt: string
}

export interface TicketNotification {
  readonly kind: "ticket"
  readonly status: "open" | "reopened" | "resolved"
  readonly notificationId: string
  readonly ticketId: string
  readonly fingerprint: string
  /** `ticket:<fingerprint>`: the identity of the ticket across notifications. */
  readonly groupKey: string
  readonly category: "server_error"
  readonly labels: Readonly<Record<string, string | null>>
  readonly count: number
  readonly severity: Severity
  readonly action: string
  readonly startsAt: string
  readonly endsAt: string | null
  readonly ticket: Ticket
  readonly sampleEvents: ReadonlyArray<SampleEvent>
  readonly link: string
  readonly generatedAt: string
}

export type Notification = AlertNotification | TicketNotification

export type NotificationReason = "firing" | "repeat" | "refresh" | "resolved" | "open" | "reopened"

/** What a receiver's encoder produces: one HTTP POST. */
export interface EncodedRequest {
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
}

export interface EncodeContext {
  /** The stable delivery id (X-Faultline-Delivery). */
  readonly deliveryId: string
  /** When this attempt is made. */
  readonly now: number
  /** This faultline (host:port of its public URL): Alertmanager `instance`, PagerDuty `source`. */
  readonly instance: string
}

const labelText = (labels: Readonly<Record<string, string | null>>, skip: ReadonlyArray<string>): string =>
  Object.entries(labels)
    .filter(([k, v]) => !skip.includes(k) && v !== null && v !== "")
    .map(([k, v]) => `${k}=${v}`)
    .join(", ")

/** One line saying what happened, shared by the receivers (Slack text, PagerDuty summary, ...). */
export const describe = (n: Notification): string => {
  if (n.kind === "alert") {
    const labels = labelText(n.labels, ["alertname", "category", "severity"])
    const scope = labels === "" ? "" : ` (${labels})`
    if (n.status !== "firing") return `Resolved: ${n.rule}${scope}`
    const what = n.category === "any" ? "" : ` ${n.category}`
    return n.calls === null || n.failureRatio === null
      ? `${n.rule}: ${n.count}${what} failure${n.count === 1 ? "" : "s"} in ${n.window}${scope}`
      : `${n.rule}: ${percent(n.failureRatio)} of calls failed (${n.count}${what} of ${n.calls}) in ${n.window}${scope}`
  }
  const t = n.ticket
  const what = [t.status === null ? "no HTTP status" : `HTTP ${t.status}`, t.code === null ? null : `code ${t.code}`].filter((x) => x !== null).join(" ")
  const where = labelText({ model: t.model, service: t.service }, [])
  const verb = n.status === "open" ? "opened" : n.status === "reopened" ? "reopened" : "resolved"
  return `Ticket ${verb}: ${what}${t.message === null ? "" : ` "${t.message}"`}${where === "" ? "" : ` (${where})`}`
}

// ---------------------------------------------------------------------------------------------
// Writing

export const newId = (prefix: string, now: number): string =>
  `${prefix}_${Math.max(0, Math.floor(now)).toString(36).padStart(9, "0")}${randomBytes(6).toString("hex")}`

export interface ReceiverRef {
  readonly name: string
  readonly type: string
}

export const bumpCounter = (db: BetterSqlite3.Database, receiver: string, outcome: string, by = 1): void => {
  statement(
    db,
    `INSERT INTO notification_counters (receiver, outcome, count) VALUES (?, ?, ?)
     ON CONFLICT (receiver, outcome) DO UPDATE SET count = count + excluded.count`
  ).run(receiver, outcome, by)
}

/**
 * One notification to each receiver, as outbox rows: `pending` (the relay delivers it) or
 * `muted` (kept for the record, never sent). Call inside the transaction that decided it.
 */
export const insertNotification = (
  db: BetterSqlite3.Database,
  args: {
    readonly receivers: ReadonlyArray<ReceiverRef>
    readonly notification: Notification
    readonly reason: NotificationReason
    readonly refId: string
    readonly now: number
    readonly mutedBy?: string | null
  }
): void => {
  const n = args.notification
  const stmt = statement(
    db,
    `INSERT INTO outbox (id, notification_id, receiver, receiver_type, kind, status, reason, ref_id, order_key,
                         payload, state, attempts, next_attempt_at, created_at, silence_id)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?)`
  )
  const payload = JSON.stringify(n)
  const muted = args.mutedBy !== undefined && args.mutedBy !== null
  for (const r of args.receivers) {
    stmt.run(
      newId("dlv", args.now), n.notificationId, r.name, r.type, n.kind, n.status, args.reason, args.refId, n.groupKey,
      payload, muted ? "muted" : "pending", args.now, args.now, muted ? args.mutedBy : null
    )
    if (muted) bumpCounter(db, r.name, "muted")
  }
}

// ---------------------------------------------------------------------------------------------
// The relay's side

export interface OutboxRow {
  readonly seq: number
  readonly id: string
  readonly notification_id: string
  readonly receiver: string
  readonly receiver_type: string
  readonly kind: "alert" | "ticket"
  readonly status: string
  readonly reason: NotificationReason
  readonly ref_id: string
  readonly order_key: string
  readonly payload: string
  readonly state: "pending" | "delivered" | "dead" | "muted"
  readonly attempts: number
  readonly next_attempt_at: number
  readonly created_at: number
  readonly delivered_at: number | null
  readonly last_error: string | null
  readonly silence_id: string | null
}

/** Pending rows not preceded by an older pending row of the same receiver and order key. */
const headCondition = `o.receiver = ? AND o.state = 'pending' AND NOT EXISTS (
  SELECT 1 FROM outbox p WHERE p.receiver = o.receiver AND p.order_key = o.order_key AND p.state = 'pending' AND p.seq < o.seq)`

/** Rows due for an attempt: at most one per order key, so trigger and resolve keep their order. */
export const dueRows = (db: BetterSqlite3.Database, receiver: string, now: number, limit: number): ReadonlyArray<OutboxRow> =>
  statement(db, `SELECT * FROM outbox o WHERE ${headCondition} AND o.next_attempt_at <= ? ORDER BY o.next_attempt_at, o.seq LIMIT ?`)
    .all(receiver, now, limit) as Array<OutboxRow>

/** When the next row of this receiver becomes due; null when nothing is pending. */
export const nextDueAt = (db: BetterSqlite3.Database, receiver: string): number | null =>
  (statement(db, `SELECT MIN(o.next_attempt_at) FROM outbox o WHERE ${headCondition}`).pluck().get(receiver) as number | null) ?? null

export interface AttemptRecord {
  readonly deliveryId: string
  readonly receiver: string
  readonly attempt: number
  readonly at: number
  readonly durationMs: number
  readonly statusCode: number | null
  readonly error: string | null
  /** delivered; failed (will be retried at nextAttemptAt); dead (never again). */
  readonly outcome: "delivered" | "failed" | "dead"
  readonly nextAttemptAt: number
}

/** Records one attempt and its consequence on the row, in one transaction. */
export const recordAttempt = (db: BetterSqlite3.Database, a: AttemptRecord): void => {
  db.transaction(() => {
    statement(
      db,
      `INSERT INTO notification_attempts (delivery_id, attempt, at, duration_ms, status_code, outcome, error) VALUES (?, ?, ?, ?, ?, ?, ?)`
    ).run(a.deliveryId, a.attempt, a.at, a.durationMs, a.statusCode, a.outcome, a.error)
    const state = a.outcome === "failed" ? "pending" : a.outcome
    statement(
      db,
      `UPDATE outbox SET state = ?, attempts = ?, next_attempt_at = ?, delivered_at = ?, last_error = ? WHERE id = ?`
    ).run(state, a.attempt, a.nextAttemptAt, a.outcome === "delivered" ? a.at + a.durationMs : null, a.error, a.deliveryId)
    bumpCounter(db, a.receiver, a.outcome)
  }).immediate()
}

// ---------------------------------------------------------------------------------------------
// Reading (HTTP API, metrics)

export interface AttemptView {
  readonly attempt: number
  readonly at: string
  readonly durationMs: number
  readonly statusCode: number | null
  readonly outcome: string
  readonly error: string | null
}

export interface NotificationView {
  readonly id: string
  readonly notificationId: string
  readonly receiver: string
  readonly receiverType: string
  readonly kind: "alert" | "ticket"
  readonly status: string
  readonly reason: string
  readonly refId: string
  readonly groupKey: string
  readonly state: string
  readonly attemptCount: number
  readonly nextAttemptAt: string | null
  readonly createdAt: string
  readonly deliveredAt: string | null
  readonly lastError: string | null
  readonly silenceId: string | null
  readonly attempts: ReadonlyArray<AttemptView>
  readonly payload?: unknown
}

/**
 * An instant of the database as ISO-8601. Clamped to what a `Date` can hold: a row written before
 * instants were bounded (a silence of `99999999d`) must not make every later answer fail.
 */
export const iso = (ms: number | null): string | null => (ms === null ? null : new Date(Math.max(-MAX_DATE_MS, Math.min(MAX_DATE_MS, ms))).toISOString())

const MAX_DATE_MS = 8_640_000_000_000_000

const attemptsOf = (db: BetterSqlite3.Database, ids: ReadonlyArray<string>): Map<string, Array<AttemptView>> => {
  const out = new Map<string, Array<AttemptView>>()
  if (ids.length === 0) return out
  const rows = statement(db, `SELECT * FROM notification_attempts WHERE delivery_id IN (SELECT value FROM json_each(?)) ORDER BY seq`)
    .all(JSON.stringify(ids)) as Array<{ delivery_id: string; attempt: number; at: number; duration_ms: number; status_code: number | null; outcome: string; error: string | null }>
  for (const r of rows) {
    const list = out.get(r.delivery_id) ?? []
    list.push({ attempt: r.attempt, at: iso(r.at)!, durationMs: r.duration_ms, statusCode: r.status_code, outcome: r.outcome, error: r.error })
    out.set(r.delivery_id, list)
  }
  return out
}

const toViews = (db: BetterSqlite3.Database, rows: ReadonlyArray<OutboxRow>, withPayload: boolean): Array<NotificationView> => {
  const attempts = attemptsOf(db, rows.map((r) => r.id))
  return rows.map((r) => ({
    id: r.id,
    notificationId: r.notification_id,
    receiver: r.receiver,
    receiverType: r.receiver_type,
    kind: r.kind,
    status: r.status,
    reason: r.reason,
    refId: r.ref_id,
    groupKey: r.order_key,
    state: r.state,
    attemptCount: r.attempts,
    nextAttemptAt: r.state === "pending" ? iso(r.next_attempt_at) : null,
    createdAt: iso(r.created_at)!,
    deliveredAt: iso(r.delivered_at),
    lastError: r.last_error,
    silenceId: r.silence_id,
    attempts: attempts.get(r.id) ?? [],
    ...(withPayload ? { payload: JSON.parse(r.payload) as unknown } : {})
  }))
}

export interface Page<A> {
  readonly items: ReadonlyArray<A>
  readonly nextCursor: string | null
}

/**
 * A page of rows read newest first by `seq`, `limit + 1` of them asked for: the cursor of the
 * next page names the last seq served, and there is one only when another row exists.
 */
export const pageOf = <R extends { readonly seq: number }, A>(list: string, rows: ReadonlyArray<R>, limit: number, toItems: (rows: ReadonlyArray<R>) => ReadonlyArray<A>): Page<A> => {
  const served = rows.length > limit ? rows.slice(0, limit) : rows
  return {
    items: toItems(served),
    nextCursor: rows.length > limit ? encodeCursor(list, [served[served.length - 1]!.seq]) : null
  }
}

/** GET /v1/notifications: newest first, keyset pagination on seq. */
export const listNotifications = (
  db: BetterSqlite3.Database,
  q: { readonly state?: string | undefined; readonly receiver?: string | undefined; readonly limit: number; readonly cursor?: number | undefined }
): Page<NotificationView> => {
  const rows = statement(
    db,
    `SELECT * FROM outbox WHERE (@state IS NULL OR state = @state) AND (@receiver IS NULL OR receiver = @receiver)
       AND (@cursor IS NULL OR seq < @cursor) ORDER BY seq DESC LIMIT @limit`
  )
    .all({ state: q.state ?? null, receiver: q.receiver ?? null, cursor: q.cursor ?? null, limit: q.limit + 1 }) as Array<OutboxRow>
  return pageOf("notifications", rows, q.limit, (served) => toViews(db, served, true))
}

/** The notifications of alerts or tickets (by their ids), oldest first. */
export const notificationsOf = (db: BetterSqlite3.Database, refIds: ReadonlyArray<string>): Map<string, Array<NotificationView>> => {
  const out = new Map<string, Array<NotificationView>>()
  if (refIds.length === 0) return out
  const rows = statement(db, `SELECT * FROM outbox WHERE ref_id IN (SELECT value FROM json_each(?)) ORDER BY seq`)
    .all(JSON.stringify(refIds)) as Array<OutboxRow>
  for (const v of toViews(db, rows, false)) {
    const list = out.get(v.refId) ?? []
    list.push(v)
    out.set(v.refId, list)
  }
  return out
}

/** faultline_notifications_total{receiver,outcome}. */
export const notificationCounts = (db: BetterSqlite3.Database): ReadonlyArray<{ receiver: string; outcome: string; count: number }> =>
  statement(db, `SELECT receiver, outcome, count FROM notification_counters ORDER BY receiver, outcome`).all() as Array<{ receiver: string; outcome: string; count: number }>

/** faultline_outbox_pending. */
export const outboxPending = (db: BetterSqlite3.Database): number =>
  statement(db, `SELECT COUNT(*) FROM outbox WHERE state = 'pending'`).pluck().get() as number

// ---------------------------------------------------------------------------------------------
// The service: wake-ups for the relay

export interface OutboxApi {
  /** Tell the relay that rows were added for these receivers (after the transaction committed). */
  readonly signal: (receivers: Iterable<string>) => Effect.Effect<void>
  /** Wait until signalled for this receiver, at most `maxMs`. */
  readonly waitForWork: (receiver: string, maxMs: number) => Effect.Effect<void>
}

export class Outbox extends Context.Tag("faultline/Outbox")<Outbox, OutboxApi>() {
  static readonly make = (config: Config): Effect.Effect<OutboxApi> =>
    Effect.gen(function* () {
      const queues = new Map<string, Queue.Queue<void>>()
      for (const r of config.receivers) queues.set(r.name, yield* Queue.sliding<void>(1))
      return {
        signal: (receivers) =>
          Effect.forEach([...new Set(receivers)], (name) => {
            const q = queues.get(name)
            return q === undefined ? Effect.void : Queue.offer(q, undefined)
          }, { discard: true }),
        waitForWork: (receiver, maxMs) => {
          const q = queues.get(receiver)
          const wait = Effect.sleep(Math.max(0, maxMs))
          return q === undefined
            ? wait
            : Queue.take(q).pipe(Effect.timeoutOption(Math.max(0, maxMs)), Effect.map(Option.getOrUndefined), Effect.asVoid)
        }
      }
    })

  static readonly layer = (config: Config): Layer.Layer<Outbox> => Layer.effect(Outbox, Outbox.make(config))
}
