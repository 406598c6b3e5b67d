/**
 * Escalation tickets (CONTRACT section 7): one per server-error signature (status, code, the
 * masked message with the model name masked out, plus the labels of `tickets.groupBy`; see
 * `signature.ts`), so one upstream failure seen from many models and services is one ticket that
 * counts them per model, service and provider. Opened at the first occurrence and sent to
 * `tickets.receivers`; further occurrences are counted; acknowledged and resolved through the
 * API; reopened (and sent again) by an occurrence whose event time is after the resolution: an
 * older occurrence, read late, is only counted.
 *
 * Tickets written before the signature (migration 005) keep their fingerprint (the per-model
 * event fingerprint) and can still be acknowledged and resolved; new occurrences count on the
 * signature's ticket.
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
import type { TicketGroupLabel } from "../config/Config.js"
import { type Diagnosis, diagnoseEvent, ticketDiagnosis } from "./diagnosis.js"
import type { Ticket, TicketState } from "./Ticket.js"
import { ticketSignature, type TicketSignature } from "./signature.js"

/** The ticket object of CONTRACT section 6 (plus its timestamps and the diagnosed event). */
export type { Ticket, TicketState } from "./Ticket.js"

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
  event_model: string | null
  diagnosis: string
  provider: string | null
  group_labels: string
}

type Label = "model" | "service" | "provider"

/** At most this many values per label are listed in a ticket (most frequent first); all are counted. */
export const TICKET_LABELS_LISTED = 100

interface LabelCounts {
  readonly model: Array<{ readonly value: string; readonly count: number }>
  readonly service: Array<{ readonly value: string; readonly count: number }>
  readonly provider: Array<{ readonly value: string; readonly count: number }>
}

const noLabels = (): LabelCounts => ({ model: [], service: [], provider: [] })

/** The order of "most frequent": count, then the value seen first, then the value. */
const LABEL_ORDER = `count DESC, first_seen ASC, value ASC`

/** The listed label values of these tickets (by seq), in one query. */
const labelsOf = (db: BetterSqlite3.Database, seqs: ReadonlyArray<number>): Map<number, LabelCounts> => {
  const out = new Map<number, LabelCounts>()
  if (seqs.length === 0) return out
  const rows = statement(
    db,
    `SELECT ticket, label, value, count FROM (
       SELECT ticket, label, value, count, ROW_NUMBER() OVER (PARTITION BY ticket, label ORDER BY ${LABEL_ORDER}) AS rn
       FROM ticket_labels WHERE ticket IN (SELECT value FROM json_each(?))
     ) WHERE rn <= ${TICKET_LABELS_LISTED} ORDER BY ticket, label, rn`
  ).all(JSON.stringify(seqs)) as Array<{ ticket: number; label: Label; value: string; count: number }>
  for (const r of rows) {
    let l = out.get(r.ticket)
    if (l === undefined) out.set(r.ticket, (l = noLabels()))
    l[r.label].push({ value: r.value, count: r.count })
  }
  return out
}

const ticketOf = (r: TicketRow, labels: LabelCounts): Ticket => ({
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
  models: labels.model.map((x) => ({ model: x.value, count: x.count })),
  services: labels.service.map((x) => ({ service: x.value, count: x.count })),
  provider: r.provider,
  providers: labels.provider.map((x) => ({ provider: x.value, count: x.count })),
  group: JSON.parse(r.group_labels) as Ticket["group"],
  sample: r.sample,
  diagnosis: ticketDiagnosis(
    JSON.parse(r.diagnosis) as Diagnosis,
    r.event_model,
    labels.model.map((x) => x.value),
    labels.service.map((x) => x.value)
  ),
  openedAt: iso(r.opened_at)!,
  acknowledgedAt: iso(r.acknowledged_at),
  resolvedAt: iso(r.resolved_at),
  eventId: r.event_id
})

const ticketsOf = (db: BetterSqlite3.Database, rows: ReadonlyArray<TicketRow>): Array<Ticket> => {
  const labels = labelsOf(db, rows.map((r) => r.seq))
  return rows.map((r) => ticketOf(r, labels.get(r.seq) ?? noLabels()))
}

const oneTicket = (db: BetterSqlite3.Database, r: TicketRow): Ticket => ticketsOf(db, [r])[0]!

/** Where ticket notifications go and what they link to. */
export interface TicketContext {
  readonly receivers: ReadonlyArray<ReceiverRef>
  /** Base URL of this faultline, for links. */
  readonly baseUrl: string
  /** `tickets.groupBy`: labels that split a signature into several tickets (default none). */
  readonly groupBy?: ReadonlyArray<TicketGroupLabel> | undefined
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
  const n = ticketNotification(oneTicket(db, row), status, now, ctx, event)
  insertNotification(db, { receivers: ctx.receivers, notification: n, reason: status satisfies NotificationReason, refId: row.id, now })
}

type Occurrence = { readonly t: number; readonly e: FailureEvent }

/** Adds the occurrences to the ticket's per-label counts (one upsert per label value). */
const countLabels = (db: BetterSqlite3.Database, seq: number, occurrences: ReadonlyArray<Occurrence>): void => {
  const acc = new Map<string, { label: Label; value: string; n: number; first: number; last: number }>()
  for (const { t, e } of occurrences) {
    for (const label of ["model", "service", "provider"] as const) {
      const value = e[label]
      if (value === null || value === undefined) continue
      const key = `${label}\u0000${value}`
      const a = acc.get(key)
      if (a === undefined) acc.set(key, { label, value, n: 1, first: t, last: t })
      else {
        a.n++
        a.first = Math.min(a.first, t)
        a.last = Math.max(a.last, t)
      }
    }
  }
  const upsert = statement(
    db,
    `INSERT INTO ticket_labels (ticket, label, value, count, first_seen, last_seen) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (ticket, label, value) DO UPDATE SET count = count + excluded.count,
       first_seen = MIN(first_seen, excluded.first_seen), last_seen = MAX(last_seen, excluded.last_seen)`
  )
  for (const a of acc.values()) upsert.run(seq, a.label, a.value, a.n, a.first, a.last)
}

/** The most frequent value of a label of the ticket, or null. */
const topLabel = (db: BetterSqlite3.Database, seq: number, label: Label): string | null =>
  (statement(db, `SELECT value FROM ticket_labels WHERE ticket = ? AND label = ? ORDER BY ${LABEL_ORDER} LIMIT 1`).pluck().get(seq, label) as
    | string
    | undefined) ?? null

/**
 * Open, count or reopen tickets for these events (the `server_error` ones are taken). Call
 * inside a transaction. One read and one write per signature of the batch (plus the label
 * counts); the outcome is that of taking the occurrences one by one in event-time order, except
 * that the notification of a ticket opened by the batch shows the whole batch counted. Answers
 * whether notifications were written (the relay is to be woken).
 */
export const recordServerErrors = (db: BetterSqlite3.Database, events: ReadonlyArray<FailureEvent>, now: number, ctx: TicketContext): boolean => {
  const groupBy = ctx.groupBy ?? []
  // each event's time read once, not in every comparison of the sort
  const bySignature = new Map<string, { readonly signature: TicketSignature; readonly list: Array<Occurrence> }>()
  for (const e of events) {
    if (e.category !== "server_error") continue
    const signature = ticketSignature(e, groupBy)
    const s = bySignature.get(signature.fingerprint)
    if (s === undefined) bySignature.set(signature.fingerprint, { signature, list: [{ t: eventTime(e, now), e }] })
    else s.list.push({ t: eventTime(e, now), e })
  }
  let notified = false
  for (const [fp, { signature, list }] of bySignature) {
    const occurrences = list.sort((a, b) => a.t - b.t)
    const first = occurrences[0]!
    const last = occurrences[occurrences.length - 1]!.t
    let row = byFingerprint(db, fp)
    let reopener: FailureEvent | undefined
    const opened = row === undefined
    if (row === undefined) {
      const { t, e } = first
      statement(
        db,
        `INSERT INTO tickets (id, fingerprint, state, count, first_seen, last_seen, opened_at, reopened_count, model, service, provider,
                              status, code, message, sample, event_id, event_model, group_labels, diagnosis, updated_at)
         VALUES (?, ?, 'open', 0, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
      ).run(
        newId("tkt", now), fp, t, t, now, e.model, e.service, e.provider, e.status, e.code, e.message, e.sample, e.id, e.model,
        JSON.stringify(signature.group), JSON.stringify(diagnoseEvent(db, e)), now
      )
      row = byFingerprint(db, fp)!
    } else {
      // the first occurrence after the resolution (by event time) reopens; older ones only count
      const resolvedAt = row.state === "resolved" ? row.resolved_at : null
      reopener = resolvedAt === null ? undefined : occurrences.find((o) => o.t > resolvedAt)?.e
    }
    countLabels(db, row.seq, occurrences)
    const model = topLabel(db, row.seq, "model")
    const service = topLabel(db, row.seq, "service")
    const provider = topLabel(db, row.seq, "provider")
    if (reopener === undefined) {
      statement(
        db,
        `UPDATE tickets SET count = count + ?, first_seen = MIN(first_seen, ?), last_seen = MAX(last_seen, ?), model = ?, service = ?, provider = ?,
                updated_at = ? WHERE seq = ?`
      ).run(occurrences.length, first.t, last, model, service, provider, now, row.seq)
    } else {
      statement(
        db,
        `UPDATE tickets SET state = 'open', count = count + ?, first_seen = MIN(first_seen, ?), last_seen = MAX(last_seen, ?), model = ?, service = ?,
                provider = ?, acknowledged_at = NULL, resolved_at = NULL, reopened_count = reopened_count + 1, message = ?, sample = ?, event_id = ?,
                event_model = ?, diagnosis = ?, updated_at = ? WHERE seq = ?`
      ).run(
        occurrences.length, first.t, last, model, service, provider, reopener.message, reopener.sample, reopener.id, reopener.model,
        JSON.stringify(diagnoseEvent(db, reopener)), now, row.seq
      )
    }
    if (opened || reopener !== undefined) {
      notify(db, byId(db, row.id)!, opened ? "open" : "reopened", now, ctx, opened ? first.e : reopener!)
      notified ||= ctx.receivers.length > 0
    }
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
  return pageOf("tickets", rows, q.limit, (served) => ticketsOf(db, served))
}

export const getTicket = (db: BetterSqlite3.Database, id: string): Ticket | null => {
  const row = byId(db, id)
  return row === undefined ? null : oneTicket(db, row)
}

export type TicketChange = { readonly _tag: "NotFound" } | { readonly _tag: "Conflict"; readonly message: string } | { readonly _tag: "Changed"; readonly ticket: Ticket; readonly notified: boolean }

/** open → acknowledged (idempotent on an acknowledged ticket; a resolved one is a conflict). */
export const acknowledgeTicket = (db: BetterSqlite3.Database, id: string, now: number): TicketChange =>
  db.transaction((): TicketChange => {
    const row = byId(db, id)
    if (row === undefined) return { _tag: "NotFound" }
    if (row.state === "resolved") return { _tag: "Conflict", message: `ticket ${id} is resolved; it reopens by itself when the failure occurs again` }
    if (row.state === "open") statement(db, `UPDATE tickets SET state = 'acknowledged', acknowledged_at = ?, updated_at = ? WHERE id = ?`).run(now, now, id)
    return { _tag: "Changed", ticket: oneTicket(db, byId(db, id)!), notified: false }
  }).immediate()

/** open | acknowledged → resolved, with a `resolved` notification to the ticket receivers (idempotent). */
export const resolveTicket = (db: BetterSqlite3.Database, id: string, now: number, ctx: TicketContext): TicketChange =>
  db.transaction((): TicketChange => {
    const row = byId(db, id)
    if (row === undefined) return { _tag: "NotFound" }
    if (row.state === "resolved") return { _tag: "Changed", ticket: oneTicket(db, row), notified: false }
    statement(db, `UPDATE tickets SET state = 'resolved', resolved_at = ?, updated_at = ? WHERE id = ?`).run(now, now, id)
    const updated = byId(db, id)!
    notify(db, updated, "resolved", now, ctx, null)
    return { _tag: "Changed", ticket: oneTicket(db, updated), notified: ctx.receivers.length > 0 }
  }).immediate()

/** faultline_tickets_open: tickets not resolved (open or acknowledged). */
export const ticketsOpen = (db: BetterSqlite3.Database): number =>
  statement(db, `SELECT COUNT(*) FROM tickets WHERE state != 'resolved'`).pluck().get() as number
