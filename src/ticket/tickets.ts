/**
 * Escalation tickets (CONTRACT section 7): one per `server_error` fingerprint. Opened at the
 * first occurrence and sent to `tickets.receivers`; further occurrences are counted;
 * acknowledged and resolved through the API; reopened (and sent again) by an occurrence whose
 * event time is after the resolution: an older occurrence, read late, is only counted.
 *
 * Plain functions over the better-sqlite3 handle; the alert engine calls `recordServerErrors`
 * inside the transaction of its decision, the HTTP routes call the rest through the engine.
 */
import type BetterSqlite3 from "better-sqlite3"
import { type FailureEvent, instantMs } from "../classify/Event.js"
import { statement } from "../store/Database.js"
import {
  insertNotification,
  iso,
  newId,
  type NotificationReason,
  type Page,
  pageOf,
  type ReceiverRef,
  sampleEventOf,
  type TicketNotification
} from "../alert/outbox.js"
import { type Diagnosis, diagnoseEvent } from "./diagnosis.js"

/** The ticket object of CONTRACT section 6 (plus its timestamps and the diagnosed event). */
export interface Ticket {
  readonly id: string
  readonly fingerprint: string
  readonly state: "open" | "acknowledged" | "resolved"
  readonly count: number
  readonly firstSeen: string
  readonly lastSeen: string
  readonly reopenedCount: number
  readonly model: string | null
  readonly service: string | null
  readonly status: number | null
  readonly code: number | string | null
  readonly message: string | null
  readonly sample: string
  readonly diagnosis: Diagnosis
  readonly openedAt: string
  readonly acknowledgedAt: string | null
  readonly resolvedAt: string | null
  readonly eventId: string
}

export type TicketState = Ticket["state"]

interface TicketRow {
  seq: number
  id: string
  fingerprint: string
  state: TicketState
  count: number
  first_seen: number
  last_seen: number
  opened_at: number
  acknowledged_at: number | null
  resolved_at: number | null
  reopened_count: number
  model: string | null
  service: string | null
  status: number | null
  code: number | string | null
  message: string | null
  sample: string
  event_id: string
  diagnosis: string
}

const ticketOf = (r: TicketRow): Ticket => ({
  id: r.id,
  fingerprint: r.fingerprint,
  state: r.state,
  count: r.count,
  firstSeen: iso(r.first_seen)!,
  lastSeen: iso(r.last_seen)!,
  reopenedCount: r.reopened_count,
  model: r.model,
  service: r.service,
  status: r.status,
  code: r.code,
  message: r.message,
  sample: r.sample,
  diagnosis: JSON.parse(r.diagnosis) as Diagnosis,
  openedAt: iso(r.opened_at)!,
  acknowledgedAt: iso(r.acknowledged_at),
  resolvedAt: iso(r.resolved_at),
  eventId: r.event_id
})

/** Where ticket notifications go and what they link to. */
export interface TicketContext {
  readonly receivers: ReadonlyArray<ReceiverRef>
  /** Base URL of this faultline, for links. */
  readonly baseUrl: string
}

export const TICKET_ACTION = "Escalate to the operator: the service answered HTTP 500 (unknown service error)."

export const ticketNotification = (
  t: Ticket,
  status: TicketNotification["status"],
  now: number,
  ctx: TicketContext,
  event: FailureEvent | null
): TicketNotification => ({
  kind: "ticket",
  status,
  notificationId: newId("ntf", now),
  ticketId: t.id,
  fingerprint: t.fingerprint,
  groupKey: `ticket:${t.fingerprint}`,
  category: "server_error",
  labels: { alertname: "server-error-ticket", category: "server_error", severity: "critical", model: t.model, service: t.service, fingerprint: t.fingerprint },
  count: t.count,
  severity: "critical",
  action: event?.action ?? TICKET_ACTION,
  startsAt: t.firstSeen,
  endsAt: status === "resolved" ? t.resolvedAt : null,
  ticket: t,
  sampleEvents: event === null ? [] : [sampleEventOf(event)],
  link: `${ctx.baseUrl}/v1/tickets?state=${t.state}`,
  generatedAt: new Date(now).toISOString()
})

const byFingerprint = (db: BetterSqlite3.Database, fp: string): TicketRow | undefined =>
  statement(db, `SELECT * FROM tickets WHERE fingerprint = ?`).get(fp) as TicketRow | undefined

const byId = (db: BetterSqlite3.Database, id: string): TicketRow | undefined =>
  statement(db, `SELECT * FROM tickets WHERE id = ?`).get(id) as TicketRow | undefined

const eventTime = (e: FailureEvent, now: number): number => {
  const t = instantMs(e.occurredAt)
  return Number.isNaN(t) ? now : t
}

const notify = (db: BetterSqlite3.Database, row: TicketRow, status: TicketNotification["status"], now: number, ctx: TicketContext, event: FailureEvent | null) => {
  if (ctx.receivers.length === 0) return
  const n = ticketNotification(ticketOf(row), status, now, ctx, event)
  insertNotification(db, { receivers: ctx.receivers, notification: n, reason: status satisfies NotificationReason, refId: row.id, now })
}

/**
 * Open, count or reopen tickets for these events (the `server_error` ones are taken). Call
 * inside a transaction. One read and one write per fingerprint of the batch; the outcome is
 * that of taking the occurrences one by one in event-time order. Answers whether notifications
 * were written (the relay is to be woken).
 */
export const recordServerErrors = (db: BetterSqlite3.Database, events: ReadonlyArray<FailureEvent>, now: number, ctx: TicketContext): boolean => {
  // each event's time read once, not in every comparison of the sort
  const byFp = new Map<string, Array<{ readonly t: number; readonly e: FailureEvent }>>()
  for (const e of events) {
    if (e.category !== "server_error") continue
    const list = byFp.get(e.fingerprint)
    if (list === undefined) byFp.set(e.fingerprint, [{ t: eventTime(e, now), e }])
    else list.push({ t: eventTime(e, now), e })
  }
  let notified = false
  for (const [fp, list] of byFp) {
    const occurrences = list.sort((a, b) => a.t - b.t)
    let row = byFingerprint(db, fp)
    let rest: ReadonlyArray<{ readonly t: number; readonly e: FailureEvent }> = occurrences
    if (row === undefined) {
      const { t, e } = occurrences[0]!
      statement(
        db,
        `INSERT INTO tickets (id, fingerprint, state, count, first_seen, last_seen, opened_at, reopened_count, model, service,
                              status, code, message, sample, event_id, diagnosis, updated_at)
         VALUES (?, ?, 'open', 1, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
      ).run(newId("tkt", now), fp, t, t, now, e.model, e.service, e.status, e.code, e.message, e.sample, e.id, JSON.stringify(diagnoseEvent(db, e)), now)
      row = byFingerprint(db, fp)!
      notify(db, row, "open", now, ctx, e)
      notified ||= ctx.receivers.length > 0
      rest = occurrences.slice(1)
    }
    if (rest.length === 0) continue
    const first = rest[0]!.t
    const last = rest[rest.length - 1]!.t
    // the first occurrence after the resolution (by event time) reopens; older ones only count
    const resolvedAt = row.state === "resolved" ? row.resolved_at : null
    const reopener = resolvedAt === null ? undefined : rest.find((o) => o.t > resolvedAt)?.e
    if (reopener === undefined) {
      statement(db, `UPDATE tickets SET count = count + ?, first_seen = MIN(first_seen, ?), last_seen = MAX(last_seen, ?), updated_at = ? WHERE id = ?`).run(
        rest.length, first, last, now, row.id
      )
      continue
    }
    statement(
      db,
      `UPDATE tickets SET state = 'open', count = count + ?, first_seen = MIN(first_seen, ?), last_seen = MAX(last_seen, ?),
              acknowledged_at = NULL, resolved_at = NULL, reopened_count = reopened_count + 1, message = ?, sample = ?, event_id = ?,
              diagnosis = ?, updated_at = ? WHERE id = ?`
    ).run(rest.length, first, last, reopener.message, reopener.sample, reopener.id, JSON.stringify(diagnoseEvent(db, reopener)), now, row.id)
    notify(db, byId(db, row.id)!, "reopened", now, ctx, reopener)
    notified ||= ctx.receivers.length > 0
  }
  return notified
}

/** GET /v1/tickets: newest first. */
export const listTickets = (
  db: BetterSqlite3.Database,
  q: { readonly state?: TicketState | undefined; readonly limit: number; readonly cursor?: number | undefined }
): Page<Ticket> => {
  const rows = statement(db, `SELECT * FROM tickets WHERE (@state IS NULL OR state = @state) AND (@cursor IS NULL OR seq < @cursor) ORDER BY seq DESC LIMIT @limit`)
    .all({ state: q.state ?? null, cursor: q.cursor ?? null, limit: q.limit + 1 }) as Array<TicketRow>
  return pageOf("tickets", rows, q.limit, (served) => served.map(ticketOf))
}

export const getTicket = (db: BetterSqlite3.Database, id: string): Ticket | null => {
  const row = byId(db, id)
  return row === undefined ? null : ticketOf(row)
}

export type TicketChange = { readonly _tag: "NotFound" } | { readonly _tag: "Conflict"; readonly message: string } | { readonly _tag: "Changed"; readonly ticket: Ticket; readonly notified: boolean }

/** open → acknowledged (idempotent on an acknowledged ticket; a resolved one is a conflict). */
export const acknowledgeTicket = (db: BetterSqlite3.Database, id: string, now: number): TicketChange =>
  db.transaction((): TicketChange => {
    const row = byId(db, id)
    if (row === undefined) return { _tag: "NotFound" }
    if (row.state === "resolved") return { _tag: "Conflict", message: `ticket ${id} is resolved; it reopens by itself when the failure occurs again` }
    if (row.state === "open") statement(db, `UPDATE tickets SET state = 'acknowledged', acknowledged_at = ?, updated_at = ? WHERE id = ?`).run(now, now, id)
    return { _tag: "Changed", ticket: ticketOf(byId(db, id)!), notified: false }
  }).immediate()

/** open | acknowledged → resolved, with a `resolved` notification to the ticket receivers (idempotent). */
export const resolveTicket = (db: BetterSqlite3.Database, id: string, now: number, ctx: TicketContext): TicketChange =>
  db.transaction((): TicketChange => {
    const row = byId(db, id)
    if (row === undefined) return { _tag: "NotFound" }
    if (row.state === "resolved") return { _tag: "Changed", ticket: ticketOf(row), notified: false }
    statement(db, `UPDATE tickets SET state = 'resolved', resolved_at = ?, updated_at = ? WHERE id = ?`).run(now, now, id)
    const updated = byId(db, id)!
    notify(db, updated, "resolved", now, ctx, null)
    return { _tag: "Changed", ticket: ticketOf(updated), notified: ctx.receivers.length > 0 }
  }).immediate()

/** faultline_tickets_open: tickets not resolved (open or acknowledged). */
export const ticketsOpen = (db: BetterSqlite3.Database): number =>
  statement(db, `SELECT COUNT(*) FROM tickets WHERE state != 'resolved'`).pluck().get() as number
