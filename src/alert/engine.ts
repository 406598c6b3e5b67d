/**
 * The alert engine (CONTRACT section 7): counts events per rule and group over sliding windows
 * of *event time*, decides firing / repeat / resolved, mutes by silences, records each decision
 * and its outbox rows in ONE SQLite transaction, and opens escalation tickets. All state lives
 * in SQLite (migrations/002_alerts.sql): a restart neither forgets a firing alert nor pages it
 * again.
 *
 * The stages after a decision, as in Alertmanager: mute (silences) → dedup (one firing alert per
 * group; repeat only after `repeatInterval`) → retry (relay.ts) → record (outbox, attempts).
 *
 * Decisions:
 * - An event counts for a rule when it matches and `occurredAt > now - window` (a future time is
 *   taken as now). Older events (a backlog read after downtime) are stored but never counted.
 * - Windows are counted per second of event time (alert_buckets): a count may include up to
 *   one second more than the exact window.
 * - A muted notification is recorded as an outbox row in state `muted` (never sent; counted as
 *   outcome `muted`; the silence id is kept). When the silence ends while the alert still fires
 *   and no firing notification was ever sent, it is sent at the next evaluation.
 * - `resolved` is sent exactly when a `firing` one was, even under a silence: what was opened in
 *   a receiver (PagerDuty incident, Alertmanager alert) is always closed.
 * - Silences apply to alerts only, not to tickets.
 */
import { cachedUserPattern } from "../config/userPattern.js"
import { actionFor } from "../classify/classify.js"
import type BetterSqlite3 from "better-sqlite3"
import { Context, Data, Duration, Effect, Either, Layer, Schedule } from "effect"
import { type FailureEvent, instantMs } from "../classify/Event.js"
import type { Config, ConfigError, Receiver } from "../config/Config.js"
import { formatDuration } from "../config/duration.js"
import { Database } from "../store/Database.js"
import {
  acknowledgeTicket,
  listTickets,
  recordServerErrors,
  resolveTicket,
  type Ticket,
  type TicketChange,
  type TicketContext,
  type TicketState,
  ticketsOpen
} from "../ticket/tickets.js"
import { AM_REFRESH_EVERY } from "./receivers/alertmanager.js"
import {
  type AlertNotification,
  insertNotification,
  iso,
  listNotifications,
  newId,
  type NotificationView,
  notificationCounts,
  notificationsOf,
  Outbox,
  outboxPending,
  type Page,
  pageOf,
  type ReceiverRef,
  SAMPLE_EVENTS,
  sampleEventOf,
  type SampleEvent
} from "./outbox.js"
import { ANY_CATEGORY, alertLabelsOf, eventGroupKeyOf, type GroupLabels, groupLabelsOf, type Rule, resolveRules, ruleMatches } from "./rules.js"
import { CallCounts } from "../store/CallCounts.js"
import { minuteOf } from "../sources/Batch.js"

// ---------------------------------------------------------------------------------------------
// Pure decision

export interface AlertSnapshot {
  /** A firing notification went out (not muted). */
  readonly notified: boolean
  /** Last firing/repeat decision, sent or muted. */
  readonly lastNotifiedAt: number | null
  readonly belowSince: number | null
  readonly lastEventAt: number
}

export type AlertDecision =
  /** No alert and the count is below threshold. */
  | { readonly _tag: "None" }
  /** The count reached the threshold: a new firing alert, notified at once. */
  | { readonly _tag: "Fire" }
  /** Still firing; `notify` says whether a notification goes out now. */
  | { readonly _tag: "Keep"; readonly notify: "firing" | "repeat" | null; readonly belowSince: number | null }
  /** Below threshold for `resolveAfter`. */
  | { readonly _tag: "Resolve" }

export const decide = (rule: Rule, now: number, count: number, alert: AlertSnapshot | null, muted: boolean): AlertDecision =>
  decideOver(rule, now, count >= rule.threshold, alert, muted)

/** `decide` for any form of rule: `over` says whether the group is past the rule's line now. */
export const decideOver = (rule: Rule, now: number, over: boolean, alert: AlertSnapshot | null, muted: boolean): AlertDecision => {
  if (alert === null) return over ? { _tag: "Fire" } : { _tag: "None" }
  let belowSince: number | null = null
  if (!over) {
    // Seen below threshold for the first time: it went below at the latest when the newest
    // counted event left the window (right after a restart that may be well before now).
    belowSince = alert.belowSince ?? Math.min(now, alert.lastEventAt + rule.windowMs)
    if (now - belowSince >= rule.resolveAfterMs) return { _tag: "Resolve" }
  }
  const repeatDue = alert.lastNotifiedAt === null || now - alert.lastNotifiedAt >= rule.repeatIntervalMs
  const silenceEnded = !alert.notified && !muted
  const notify = repeatDue || silenceEnded ? (alert.notified ? "repeat" : "firing") : null
  return { _tag: "Keep", notify, belowSince }
}

/** A group under its rule now (see `measure` in the engine). */
export interface Measure {
  readonly count: number
  readonly calls: number | null
  readonly ratio: number | null
  readonly over: boolean
}

/** The action of an alert opened without an event at hand: the category's. */
const actionOf = (rule: Rule): string => (rule.category === null ? "Look at the failures of the group: the failure ratio is above the rule's line." : actionFor(rule.category, null))

// ---------------------------------------------------------------------------------------------
// Silences (pure matching)

export interface Matcher {
  readonly label: string
  readonly value: string
  readonly isRegex: boolean
}

export interface Silence {
  readonly id: string
  readonly matchers: ReadonlyArray<Matcher>
  readonly startsAt: string
  readonly endsAt: string
  readonly comment: string | null
  readonly createdBy: string | null
  readonly createdAt: string
  readonly state: "pending" | "active" | "expired"
}

export class SilenceError extends Data.TaggedError("SilenceError")<{ readonly reason: "invalid"; readonly message: string }> {}

/**
 * Alertmanager semantics: a missing label is the empty string; regexes are anchored. A matcher's
 * label is the API caller's text, so only the alert's own labels are read (not `constructor`).
 */
export const silenceMatches = (labels: Readonly<Record<string, string | null>>, matchers: ReadonlyArray<Matcher>): boolean =>
  matchers.length > 0 &&
  matchers.every((m) => {
    const v = (Object.hasOwn(labels, m.label) ? labels[m.label] : null) ?? ""
    if (!m.isRegex) return v === m.value
    // anchored and case-sensitive like Alertmanager's; on the linear-time engine (a pattern
    // stored before patterns were checked, and refused now, matches nothing)
    const p = cachedUserPattern(m.value, SILENCE_PATTERN)
    return typeof p !== "string" && p.test(v)
  })

const SILENCE_PATTERN = { caseSensitive: true, whole: true } as const

// ---------------------------------------------------------------------------------------------
// Views (HTTP API)

export interface AlertView {
  readonly id: string
  readonly rule: string
  readonly groupKey: string
  readonly labels: Readonly<Record<string, string | null>>
  readonly state: "firing" | "resolved"
  readonly severity: string
  readonly category: string
  readonly count: number
  readonly threshold: number
  /** A ratio or slo rule: the group's calls in the window and failures / calls (null for a count rule). */
  readonly calls: number | null
  readonly failureRatio: number | null
  readonly window: string
  readonly startsAt: string
  readonly endsAt: string | null
  readonly lastNotifiedAt: string | null
  readonly action: string
  /** The active silence muting this alert now, if any. */
  readonly silencedBy: string | null
  readonly notifications: ReadonlyArray<NotificationView>
}

interface AlertRow {
  seq: number
  id: string
  rule: string
  group_key: string
  labels: string
  state: "firing" | "resolved"
  severity: string
  category: string
  count: number
  threshold: number
  calls: number | null
  failure_ratio: number | null
  window_ms: number
  action: string
  starts_at: number
  ends_at: number | null
  last_event_at: number
  below_since: number | null
  last_notified_at: number | null
  notified: number
  updated_at: number
}

interface SilenceRow {
  seq: number
  id: string
  matchers: string
  starts_at: number
  ends_at: number
  comment: string | null
  created_by: string | null
  created_at: number
}


// ---------------------------------------------------------------------------------------------
// Metrics getters (plain reads; the integrator wires them into prom-client)

/** faultline_alerts_firing{rule}: every configured rule, 0 included. */
export const alertsFiring = (db: BetterSqlite3.Database, ruleNames: ReadonlyArray<string> = []): ReadonlyArray<{ rule: string; count: number }> => {
  const counts = new Map<string, number>(ruleNames.map((r) => [r, 0]))
  for (const r of db.prepare(`SELECT rule, COUNT(*) AS count FROM alerts WHERE state = 'firing' GROUP BY rule`).all() as Array<{ rule: string; count: number }>) {
    counts.set(r.rule, r.count)
  }
  return [...counts].map(([rule, count]) => ({ rule, count }))
}

export { notificationCounts, outboxPending, ticketsOpen }

export interface AlertGauges {
  readonly alertsFiring: () => ReadonlyArray<{ rule: string; count: number }>
  readonly notifications: () => ReadonlyArray<{ receiver: string; outcome: string; count: number }>
  readonly outboxPending: () => number
  readonly ticketsOpen: () => number
}

// ---------------------------------------------------------------------------------------------
// The service

export interface AlertsQuery {
  readonly state?: "firing" | "resolved" | undefined
  readonly limit: number
  readonly cursor?: number | undefined
}

export interface SilenceInput {
  readonly matchers: ReadonlyArray<Matcher>
  /** Epoch ms; default now. */
  readonly startsAt: number | null
  /** Exactly one of endsAt (epoch ms) and durationMs. */
  readonly endsAt: number | null
  readonly durationMs: number | null
  readonly comment: string | null
  readonly createdBy: string | null
}

export interface AlertEngineApi {
  /** Called after each store commit with the events newly stored. */
  readonly observe: (events: ReadonlyArray<FailureEvent>) => Effect.Effect<void>
  /** Repeat, resolve, refresh Alertmanager, prune windows. Runs every `evaluateEvery` on its own. */
  readonly evaluate: Effect.Effect<void>
  readonly rules: ReadonlyArray<Rule>
  readonly listAlerts: (q: AlertsQuery) => Effect.Effect<Page<AlertView>>
  readonly listTickets: (q: { readonly state?: TicketState | undefined; readonly limit: number; readonly cursor?: number | undefined }) => Effect.Effect<Page<Ticket>>
  readonly acknowledgeTicket: (id: string) => Effect.Effect<TicketChange>
  readonly resolveTicket: (id: string) => Effect.Effect<TicketChange>
  readonly listNotifications: (q: {
    readonly state?: "pending" | "delivered" | "dead" | "muted" | undefined
    readonly receiver?: string | undefined
    readonly limit: number
    readonly cursor?: number | undefined
  }) => Effect.Effect<Page<NotificationView>>
  readonly createSilence: (input: SilenceInput) => Effect.Effect<Silence, SilenceError>
  readonly listSilences: (q: { readonly state?: Silence["state"] | undefined; readonly limit: number; readonly cursor?: number | undefined }) => Effect.Effect<Page<Silence>>
  /** Ends a silence now; null for an unknown id. */
  readonly expireSilence: (id: string) => Effect.Effect<Silence | null>
  /** Sync getters for faultline_alerts_firing, _notifications_total, _outbox_pending, _tickets_open. */
  readonly gauges: AlertGauges
}

export interface AlertEngineOptions {
  /** How often `evaluate` runs (default 5 s). */
  readonly evaluateEvery?: Duration.DurationInput
}

/** The base URL of this faultline for links, and its `instance` (host:port). */
export const publicBase = (config: Config): { readonly baseUrl: string; readonly instance: string } => {
  const host = config.http.host.includes(":") && !config.http.host.startsWith("[") ? `[${config.http.host}]` : config.http.host
  const baseUrl = (config.http.publicUrl ?? `http://${host}:${config.http.port}`).replace(/\/+$/, "")
  let instance = `${host}:${config.http.port}`
  try {
    instance = new URL(baseUrl).host
  } catch {
    // keep host:port
  }
  return { baseUrl, instance }
}

export class AlertEngine extends Context.Tag("faultline/AlertEngine")<AlertEngine, AlertEngineApi>() {
  static readonly make = (config: Config, options: AlertEngineOptions = {}) =>
    Effect.gen(function* () {
      const { db } = yield* Database
      const outbox = yield* Outbox
      const clock = yield* Effect.clock
      const rules = yield* Either.match(resolveRules(config.rules), { onLeft: Effect.fail, onRight: Effect.succeed })
      const ruleByName = new Map(rules.map((r) => [r.name, r]))
      const receiverByName = new Map<string, Receiver>(config.receivers.map((r) => [r.name, r]))
      const refs = (names: ReadonlyArray<string>): ReadonlyArray<ReceiverRef> =>
        names.flatMap((n) => {
          const r = receiverByName.get(n)
          return r === undefined ? [] : [{ name: r.name, type: r.type }]
        })
      const receiversOf = (rule: Rule | undefined) => refs(rule?.receivers ?? config.defaultReceivers)
      const { baseUrl } = publicBase(config)
      const ticketCtx: TicketContext = { receivers: refs(config.tickets.receivers), baseUrl, groupBy: config.tickets.groupBy }

      // ---- statements
      const st = {
        bucket: db.prepare(
          `INSERT INTO alert_buckets (group_key, rule, second, count) VALUES (?, ?, ?, ?)
           ON CONFLICT (group_key, second) DO UPDATE SET count = count + excluded.count`
        ),
        windowCount: db.prepare(`SELECT COALESCE(SUM(count), 0) FROM alert_buckets WHERE group_key = ? AND second >= ?`).pluck(),
        sample: db.prepare(`INSERT OR IGNORE INTO alert_samples (group_key, occurred_at, event_id, event) VALUES (?, ?, ?, ?)`),
        trimSamples: db.prepare(
          `DELETE FROM alert_samples WHERE group_key = @key AND (occurred_at, event_id) NOT IN (
             SELECT occurred_at, event_id FROM alert_samples WHERE group_key = @key ORDER BY occurred_at DESC, event_id DESC LIMIT ${SAMPLE_EVENTS})`
        ),
        samples: db.prepare(`SELECT event FROM alert_samples WHERE group_key = ? ORDER BY occurred_at DESC, event_id DESC LIMIT ${SAMPLE_EVENTS}`).pluck(),
        firingByKey: db.prepare(`SELECT * FROM alerts WHERE group_key = ? AND state = 'firing'`),
        firing: db.prepare(`SELECT * FROM alerts WHERE state = 'firing' ORDER BY seq`),
        insertAlert: db.prepare(
          `INSERT INTO alerts (id, rule, group_key, labels, state, severity, category, count, threshold, calls, failure_ratio, window_ms, action, starts_at,
                               last_event_at, notified, updated_at)
           VALUES (@id, @rule, @key, @labels, 'firing', @severity, @category, @count, @threshold, @calls, @ratio, @windowMs, @action, @now, @lastEventAt, 0, @now)`
        ),
        keep: db.prepare(
          `UPDATE alerts SET count = @count, calls = @calls, failure_ratio = @ratio, below_since = @belowSince, last_event_at = MAX(last_event_at, @lastEventAt),
                             updated_at = @now WHERE id = @id`
        ),
        notified: db.prepare(
          `UPDATE alerts SET last_notified_at = @now, notified = MAX(notified, @sent), updated_at = @now WHERE id = @id`
        ),
        resolve: db.prepare(
          `UPDATE alerts SET state = 'resolved', ends_at = @now, count = @count, calls = COALESCE(@calls, calls), failure_ratio = COALESCE(@ratio, failure_ratio),
                             below_since = NULL, updated_at = @now WHERE id = @id`
        ),
        byId: db.prepare(`SELECT * FROM alerts WHERE id = ?`),
        activeSilences: db.prepare(`SELECT * FROM silences WHERE starts_at <= ? AND ends_at > ? ORDER BY seq`),
        lastRow: db.prepare(`SELECT state, created_at FROM outbox WHERE receiver = ? AND order_key = ? ORDER BY seq DESC LIMIT 1`),
        dropRefreshes: db.prepare(`DELETE FROM outbox WHERE receiver = ? AND order_key = ? AND reason = 'refresh' AND state IN ('delivered', 'dead')`),
        pruneBuckets: db.prepare(`DELETE FROM alert_buckets WHERE rule = ? AND second < ?`),
        pruneOrphanBuckets: db.prepare(`DELETE FROM alert_buckets WHERE rule NOT IN (SELECT value FROM json_each(?))`),
        pruneSamples: db.prepare(
          `DELETE FROM alert_samples WHERE occurred_at < ? AND group_key NOT IN (SELECT group_key FROM alerts WHERE state = 'firing')`
        ),
        // history older than database.retentionDays (attempts go with their rows: ON DELETE CASCADE)
        pruneOutbox: db.prepare(`DELETE FROM outbox WHERE state IN ('delivered', 'dead', 'muted') AND created_at < ?`),
        pruneAlerts: db.prepare(
          `DELETE FROM alerts WHERE state = 'resolved' AND ends_at < ? AND id NOT IN (SELECT ref_id FROM outbox WHERE state = 'pending')`
        ),
        pruneSilences: db.prepare(`DELETE FROM silences WHERE ends_at < ?`)
      }
      const retentionMs = config.database.retentionDays * 86_400_000
      let lastHistoryPrune = 0

      const eventTime = (e: FailureEvent, now: number): number => {
        const t = instantMs(e.occurredAt)
        return Number.isNaN(t) ? now : Math.min(t, now)
      }
      const firstSecondOf = (rule: Rule, now: number) => Math.floor((now - rule.windowMs) / 1000)
      const calls = new CallCounts(db)

      /**
       * Where a group stands now: its failures in the window (`count`), and for a ratio or slo rule
       * its calls and failures / calls, and whether it is past the rule's line (`over`). Ratio and
       * burn-rate windows start on a whole minute, as calls are counted per minute.
       */
      const measure = (rule: Rule, key: string, labels: Readonly<Record<string, string | null>>, now: number): Measure => {
        const mode = rule.mode
        if (mode._tag === "count") {
          const count = st.windowCount.get(key, firstSecondOf(rule, now)) as number
          return { count, calls: null, ratio: null, over: count >= rule.threshold }
        }
        const callLabels: Record<string, string | null> = {}
        for (const l of rule.groupBy) if (l === "service" || l === "model" || l === "provider") callLabels[l] = labels[l] ?? null
        const over = (windowMs: number) => {
          const since = minuteOf(now - windowMs)
          const failures = st.windowCount.get(key, Math.floor(since / 1000)) as number
          const c = calls.since(callLabels, since)
          const n = c.ok + c.failed
          return { count: failures, calls: n, ratio: n > 0 ? Math.min(1, failures / n) : null }
        }
        if (mode._tag === "ratio") {
          const m = over(rule.windowMs)
          return { ...m, over: m.ratio !== null && m.calls >= mode.minCalls && m.ratio >= mode.ratio }
        }
        const budget = 1 - mode.objective
        let first: Measure | null = null
        for (const w of mode.windows) {
          const long = over(w.longMs)
          const short = over(w.shortMs)
          const burning =
            long.ratio !== null && short.ratio !== null && long.calls >= mode.minCalls && long.ratio / budget >= w.factor && short.ratio / budget >= w.factor
          if (burning) return { ...long, over: true }
          first ??= { ...long, over: false }
        }
        return first!
      }

      const silences = (now: number) =>
        (st.activeSilences.all(now, now) as Array<SilenceRow>).map((s) => ({ id: s.id, matchers: JSON.parse(s.matchers) as Array<Matcher> }))
      const mutedBy = (labels: Readonly<Record<string, string | null>>, now: number): string | null =>
        silences(now).find((s) => silenceMatches(labels, s.matchers))?.id ?? null

      const notification = (a: AlertRow, status: "firing" | "resolved", repeat: boolean, now: number): AlertNotification => ({
        kind: "alert",
        status,
        notificationId: newId("ntf", now),
        repeat,
        alertId: a.id,
        groupKey: a.group_key,
        rule: a.rule,
        category: a.category as AlertNotification["category"],
        labels: JSON.parse(a.labels) as Record<string, string | null>,
        count: a.count,
        threshold: a.threshold,
        calls: a.calls,
        failureRatio: a.failure_ratio,
        window: ruleByName.get(a.rule)?.window ?? formatDuration(a.window_ms),
        severity: a.severity as AlertNotification["severity"],
        action: a.action,
        startsAt: iso(a.starts_at)!,
        endsAt: iso(a.ends_at),
        sampleEvents: (st.samples.all(a.group_key) as Array<string>).map((s) => JSON.parse(s) as SampleEvent),
        link: `${baseUrl}/v1/alerts?state=${status}`,
        generatedAt: iso(now)!
      })

      /** Decide for one group and apply the decision (inside the caller's transaction). */
      const decideGroup = (
        rule: Rule,
        key: string,
        group: GroupLabels | null,
        now: number,
        latest: FailureEvent | null,
        signal: Set<string>
      ): void => {
        let alert = st.firingByKey.get(key) as AlertRow | undefined
        if (alert === undefined && group === null) return
        const labels = alert !== undefined ? (JSON.parse(alert.labels) as Record<string, string | null>) : alertLabelsOf(rule, group!)
        const m = measure(rule, key, labels, now)
        const count = m.count
        if (alert === undefined && !m.over) return
        const silence = mutedBy(labels, now)
        const lastEventAt = latest === null ? (alert?.last_event_at ?? now) : eventTime(latest, now)
        const snapshot: AlertSnapshot | null =
          alert === undefined
            ? null
            : { notified: alert.notified === 1, lastNotifiedAt: alert.last_notified_at, belowSince: alert.below_since, lastEventAt: Math.max(alert.last_event_at, lastEventAt) }
        const d = decideOver(rule, now, m.over, snapshot, silence !== null)
        const receivers = receiversOf(rule)
        const send = (a: AlertRow, status: "firing" | "resolved", repeat: boolean, muted: string | null) => {
          if (receivers.length === 0) return
          insertNotification(db, { receivers, notification: notification(a, status, repeat, now), reason: status === "resolved" ? "resolved" : repeat ? "repeat" : "firing", refId: a.id, now, mutedBy: muted })
          if (muted === null) for (const r of receivers) signal.add(r.name)
        }
        switch (d._tag) {
          case "None":
            return
          case "Fire": {
            const id = newId("alr", now)
            st.insertAlert.run({
              id, rule: rule.name, key, labels: JSON.stringify(labels), severity: rule.severity, category: rule.category ?? ANY_CATEGORY, count,
              threshold: rule.threshold, calls: m.calls, ratio: m.ratio, windowMs: rule.windowMs, action: latest?.action ?? actionOf(rule), now, lastEventAt
            })
            alert = st.byId.get(id) as AlertRow
            send(alert, "firing", false, silence)
            st.notified.run({ id, now, sent: silence === null ? 1 : 0 })
            return
          }
          case "Keep": {
            st.keep.run({ id: alert!.id, count, calls: m.calls, ratio: m.ratio, belowSince: d.belowSince, lastEventAt, now })
            if (d.notify !== null) {
              const fresh = st.byId.get(alert!.id) as AlertRow
              send(fresh, "firing", d.notify === "repeat", silence)
              st.notified.run({ id: fresh.id, now, sent: silence === null ? 1 : 0 })
            }
            return
          }
          case "Resolve": {
            st.resolve.run({ id: alert!.id, now, count, calls: m.calls, ratio: m.ratio })
            if (alert!.notified === 1) send(st.byId.get(alert!.id) as AlertRow, "resolved", false, null)
            return
          }
        }
      }

      type Group = { rule: Rule; group: GroupLabels; events: Array<FailureEvent> }
      type Bucket = { key: string; rule: string; second: number; n: number }

      /** The events of a batch by rule group, and their count per group and second (the windows). */
      const collect = (events: ReadonlyArray<FailureEvent>, now: number) => {
        const groups = new Map<string, Group>()
        const buckets = new Map<string, Bucket>()
        for (const e of events) {
          const t = eventTime(e, now)
          for (const rule of rules) {
            if (!ruleMatches(rule, e) || t <= now - rule.windowMs) continue
            const key = eventGroupKeyOf(rule, e)
            const second = Math.floor(t / 1000)
            const bucketKey = `${key}\u0000${second}`
            const b = buckets.get(bucketKey)
            if (b === undefined) buckets.set(bucketKey, { key, rule: rule.name, second, n: 1 })
            else b.n++
            const g = groups.get(key)
            if (g === undefined) groups.set(key, { rule, group: groupLabelsOf(rule, e), events: [e] })
            else g.events.push(e)
          }
        }
        return { groups, buckets }
      }

      /** The `n` newest events with their times, oldest first (a stable sort: ties keep the batch's order). */
      const newestOf = (events: ReadonlyArray<FailureEvent>, now: number, n: number): Array<{ readonly t: number; readonly e: FailureEvent }> => {
        const timed = events.map((e) => ({ t: eventTime(e, now), e }))
        timed.sort((a, b) => a.t - b.t)
        return timed.slice(-n)
      }

      // one transaction function for the engine's life (db.transaction wraps a new function each call)
      const observeTx = db.transaction((events: ReadonlyArray<FailureEvent>, now: number, signal: Set<string>) => {
        const { groups, buckets } = collect(events, now)
        for (const b of buckets.values()) st.bucket.run(b.key, b.rule, b.second, b.n)
        for (const [key, g] of groups) {
          const newest = newestOf(g.events, now, SAMPLE_EVENTS)
          for (const { t, e } of newest) st.sample.run(key, t, e.id, JSON.stringify(sampleEventOf(e)))
          st.trimSamples.run({ key })
          decideGroup(g.rule, key, g.group, now, newest[newest.length - 1]!.e, signal)
        }
        if (recordServerErrors(db, events, now, ticketCtx)) for (const r of ticketCtx.receivers) signal.add(r.name)
      })

      const observeSync = (events: ReadonlyArray<FailureEvent>, now: number): Set<string> => {
        const signal = new Set<string>()
        observeTx.immediate(events, now, signal)
        return signal
      }

      /** Keep Alertmanager's copy of a firing alert alive (it expires at the endsAt we send). */
      const refreshAlertmanager = (a: AlertRow, rule: Rule, now: number, signal: Set<string>) => {
        if (a.notified !== 1) return
        const am = receiversOf(rule).filter((r) => r.type === "alertmanager")
        if (am.length === 0 || mutedBy(JSON.parse(a.labels) as Record<string, string | null>, now) !== null) return
        for (const r of am) {
          const last = st.lastRow.get(r.name, a.group_key) as { state: string; created_at: number } | undefined
          if (last !== undefined && (last.state === "pending" || now - last.created_at < AM_REFRESH_EVERY)) continue
          st.dropRefreshes.run(r.name, a.group_key)
          insertNotification(db, { receivers: [r], notification: notification(a, "firing", true, now), reason: "refresh", refId: a.id, now })
          signal.add(r.name)
        }
      }

      const evaluateSync = (now: number): Set<string> => {
        const signal = new Set<string>()
        db.transaction(() => {
          for (const a of st.firing.all() as Array<AlertRow>) {
            const rule = ruleByName.get(a.rule)
            if (rule === undefined) {
              // The rule left the config: resolve its alert (and close what was opened).
              st.resolve.run({ id: a.id, now, count: a.count, calls: null, ratio: null })
              const receivers = receiversOf(undefined)
              if (a.notified === 1 && receivers.length > 0) {
                insertNotification(db, { receivers, notification: notification(st.byId.get(a.id) as AlertRow, "resolved", false, now), reason: "resolved", refId: a.id, now })
                for (const r of receivers) signal.add(r.name)
              }
              continue
            }
            decideGroup(rule, a.group_key, null, now, null, signal)
            const after = st.byId.get(a.id) as AlertRow
            if (after.state === "firing") refreshAlertmanager(after, rule, now, signal)
          }
          for (const rule of rules) st.pruneBuckets.run(rule.name, firstSecondOf(rule, now))
          st.pruneOrphanBuckets.run(JSON.stringify(rules.map((r) => r.name)))
          st.pruneSamples.run(now - 86_400_000)
          if (now - lastHistoryPrune >= 3_600_000) {
            lastHistoryPrune = now
            for (const stmt of [st.pruneOutbox, st.pruneAlerts, st.pruneSilences]) stmt.run(now - retentionMs)
          }
        }).immediate()
        return signal
      }

      const observe = (events: ReadonlyArray<FailureEvent>): Effect.Effect<void> =>
        events.length === 0
          ? Effect.void
          : clock.currentTimeMillis.pipe(
              Effect.map((now) => observeSync(events, now)),
              Effect.flatMap(outbox.signal)
            )

      const evaluate: Effect.Effect<void> = clock.currentTimeMillis.pipe(
        Effect.map(evaluateSync),
        Effect.flatMap(outbox.signal)
      )

      // ---- reads and API actions
      const silenceOf = (r: SilenceRow, now: number): Silence => ({
        id: r.id,
        matchers: JSON.parse(r.matchers) as Array<Matcher>,
        startsAt: iso(r.starts_at)!,
        endsAt: iso(r.ends_at)!,
        comment: r.comment,
        createdBy: r.created_by,
        createdAt: iso(r.created_at)!,
        state: r.ends_at <= now ? "expired" : r.starts_at > now ? "pending" : "active"
      })

      const listAlertsSync = (q: AlertsQuery, now: number): Page<AlertView> => {
        const rows = db
          .prepare(`SELECT * FROM alerts WHERE (@state IS NULL OR state = @state) AND (@cursor IS NULL OR seq < @cursor) ORDER BY seq DESC LIMIT @limit`)
          .all({ state: q.state ?? null, cursor: q.cursor ?? null, limit: q.limit + 1 }) as Array<AlertRow>
        const notes = notificationsOf(db, rows.slice(0, q.limit).map((r) => r.id))
        const active = silences(now)
        return pageOf("alerts", rows, q.limit, (served) =>
          served.map((r) => {
            const labels = JSON.parse(r.labels) as Record<string, string | null>
            return {
              id: r.id,
              rule: r.rule,
              groupKey: r.group_key,
              labels,
              state: r.state,
              severity: r.severity,
              category: r.category,
              count: r.count,
              threshold: r.threshold,
              calls: r.calls,
              failureRatio: r.failure_ratio,
              window: ruleByName.get(r.rule)?.window ?? formatDuration(r.window_ms),
              startsAt: iso(r.starts_at)!,
              endsAt: iso(r.ends_at),
              lastNotifiedAt: iso(r.last_notified_at),
              action: r.action,
              silencedBy: r.state === "firing" ? (active.find((s) => silenceMatches(labels, s.matchers))?.id ?? null) : null,
              notifications: notes.get(r.id) ?? []
            }
          })
        )
      }

      const createSilenceSync = (input: SilenceInput, now: number): Either.Either<Silence, SilenceError> => {
        const invalid = (message: string) => Either.left(new SilenceError({ reason: "invalid", message }))
        if (input.matchers.length === 0) return invalid("a silence needs at least one matcher")
        for (const m of input.matchers) {
          if (!m.isRegex) continue
          const p = cachedUserPattern(m.value, SILENCE_PATTERN)
          if (typeof p === "string") return invalid(`matcher ${m.label}: invalid regular expression: the pattern ${p}`)
        }
        if ((input.endsAt === null) === (input.durationMs === null)) return invalid("give exactly one of endsAt and duration")
        const startsAt = input.startsAt ?? now
        const endsAt = input.endsAt ?? startsAt + input.durationMs!
        if (endsAt <= now) return invalid("endsAt is in the past")
        if (endsAt <= startsAt) return invalid("endsAt must be after startsAt")
        const id = newId("sil", now)
        db.prepare(
          `INSERT INTO silences (id, matchers, starts_at, ends_at, comment, created_by, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`
        ).run(id, JSON.stringify(input.matchers), startsAt, endsAt, input.comment, input.createdBy, now, now)
        return Either.right(silenceOf(db.prepare(`SELECT * FROM silences WHERE id = ?`).get(id) as SilenceRow, now))
      }

      const listSilencesSync = (q: { state?: Silence["state"] | undefined; limit: number; cursor?: number | undefined }, now: number): Page<Silence> => {
        const rows = db
          .prepare(
            `SELECT * FROM silences WHERE (@cursor IS NULL OR seq < @cursor)
               AND (@state IS NULL OR (@state = 'expired' AND ends_at <= @now) OR (@state = 'pending' AND starts_at > @now AND ends_at > @now)
                    OR (@state = 'active' AND starts_at <= @now AND ends_at > @now))
             ORDER BY seq DESC LIMIT @limit`
          )
          .all({ state: q.state ?? null, cursor: q.cursor ?? null, limit: q.limit + 1, now }) as Array<SilenceRow>
        return pageOf("silences", rows, q.limit, (served) => served.map((r) => silenceOf(r, now)))
      }

      const expireSilenceSync = (id: string, now: number): Silence | null => {
        db.prepare(`UPDATE silences SET ends_at = MIN(ends_at, ?), updated_at = ? WHERE id = ?`).run(now, now, id)
        const row = db.prepare(`SELECT * FROM silences WHERE id = ?`).get(id) as SilenceRow | undefined
        return row === undefined ? null : silenceOf(row, now)
      }

      const withNow = <A>(f: (now: number) => A): Effect.Effect<A> => Effect.map(clock.currentTimeMillis, f)

      const api: AlertEngineApi = {
        observe,
        evaluate,
        rules,
        listAlerts: (q) => withNow((now) => listAlertsSync(q, now)),
        listTickets: (q) => Effect.sync(() => listTickets(db, q)),
        acknowledgeTicket: (id) => withNow((now) => acknowledgeTicket(db, id, now)),
        resolveTicket: (id) =>
          withNow((now) => resolveTicket(db, id, now, ticketCtx)).pipe(
            Effect.tap((c) => (c._tag === "Changed" && c.notified ? outbox.signal(ticketCtx.receivers.map((r) => r.name)) : Effect.void))
          ),
        listNotifications: (q) => Effect.sync(() => listNotifications(db, q)),
        createSilence: (input) => Effect.flatMap(withNow((now) => createSilenceSync(input, now)), Either.match({ onLeft: Effect.fail, onRight: Effect.succeed })),
        listSilences: (q) => withNow((now) => listSilencesSync(q, now)),
        expireSilence: (id) => withNow((now) => expireSilenceSync(id, now)),
        gauges: {
          alertsFiring: () => alertsFiring(db, rules.map((r) => r.name)),
          notifications: () => notificationCounts(db),
          outboxPending: () => outboxPending(db),
          ticketsOpen: () => ticketsOpen(db)
        }
      }

      yield* evaluate.pipe(
        Effect.catchAllCause((cause) => Effect.logError("alert evaluation failed", cause)),
        Effect.repeat(Schedule.spaced(options.evaluateEvery ?? Duration.seconds(5))),
        Effect.forkScoped
      )
      return api
    })

  static readonly layer = (config: Config, options: AlertEngineOptions = {}): Layer.Layer<AlertEngine, ConfigError, Database | Outbox> =>
    Layer.scoped(AlertEngine, AlertEngine.make(config, options))
}

/** For the report: alerts firing now and tickets not resolved. */
export const alertCounts = (db: BetterSqlite3.Database): { readonly firing: number; readonly ticketsOpen: number } => ({
  firing: db.prepare(`SELECT COUNT(*) FROM alerts WHERE state = 'firing'`).pluck().get() as number,
  ticketsOpen: ticketsOpen(db)
})
