/**
 * Calls of the LLM API, counted per minute and hour by service, model and provider
 * (migrations/006_calls.sql; CONTRACT sections 3, 6, 7, 9). Written inside the store's commit
 * transaction (`record`), so a tailed file's calls are counted exactly once with its read
 * position, and every stored event is counted as a failed call there — a duplicate event id
 * counts nothing. Read by the report (calls and failure ratios), the alert engine (ratio and
 * burn-rate rules), the diagnosis (model health) and the metrics at start-up.
 *
 * Counts are per minute: a window's calls are those of the minutes it touches (its edges are
 * rounded out to whole minutes), so failures / calls never exceeds what was seen.
 */
import type BetterSqlite3 from "better-sqlite3"
import { type FailureEvent, instantMs } from "../classify/Event.js"
import { type CallCount, CallTally, minuteOf } from "../sources/Batch.js"

const HOUR_MS = 3_600_000
const DAY_MS = 86_400_000
const HOUR_MIN_RETENTION_DAYS = 400
const KEY_CACHE_MAX = 100_000

const floorHour = (ms: number): number => ms - (((ms % HOUR_MS) + HOUR_MS) % HOUR_MS)

/** Labels a count can be narrowed to; an absent label matches every value, a null one only null. */
export interface CallLabels {
  readonly service?: string | null
  readonly model?: string | null
  readonly provider?: string | null
}

export interface CallTotals {
  readonly ok: number
  readonly failed: number
}

/** What the report adds: calls in the window, per model and per timeline bucket. */
export interface WindowCalls {
  readonly calls: number
  readonly byModel: ReadonlyMap<string | null, number>
  /** Calls per timeline bucket start (epoch ms). */
  readonly timeline: ReadonlyMap<number, number>
}

export interface ModelHealth {
  readonly model: string | null
  readonly calls: number
  readonly failed: number
  readonly failureRatio: number | null
}

/** A call count row read back. */
interface Row {
  readonly t: number
  readonly service: string | null
  readonly model: string | null
  readonly provider: string | null
  readonly ok: number
  readonly failed: number
}

export class CallCounts {
  private readonly keyIds = new Map<string, number>()
  private readonly selectKey: BetterSqlite3.Statement
  private readonly insertKey: BetterSqlite3.Statement
  private readonly upsertMinute: BetterSqlite3.Statement
  private readonly upsertHour: BetterSqlite3.Statement
  private readonly insertPost: BetterSqlite3.Statement
  private readonly rowsAt: Readonly<Record<"minute" | "hour", BetterSqlite3.Statement>>
  private readonly sums = new Map<string, BetterSqlite3.Statement>()

  constructor(private readonly db: BetterSqlite3.Database) {
    this.selectKey = db.prepare(`SELECT id FROM call_keys WHERE key = ?`).pluck()
    this.insertKey = db.prepare(`INSERT INTO call_keys (key, service, model, provider) VALUES (?, ?, ?, ?)`)
    const upsert = (table: string) =>
      db.prepare(
        `INSERT INTO ${table} (t, key, ok, failed) VALUES (?, ?, ?, ?)
         ON CONFLICT (t, key) DO UPDATE SET ok = ok + excluded.ok, failed = failed + excluded.failed`
      )
    this.upsertMinute = upsert("calls_minute")
    this.upsertHour = upsert("calls_hour")
    this.insertPost = db.prepare(`INSERT OR IGNORE INTO call_posts (id, at) VALUES (?, ?)`)
    const rows = (table: string) =>
      db.prepare(
        `SELECT c.t AS t, k.service AS service, k.model AS model, k.provider AS provider, c.ok AS ok, c.failed AS failed
         FROM ${table} c JOIN call_keys k ON k.id = c.key WHERE c.t >= ? AND c.t < ?`
      )
    this.rowsAt = { minute: rows("calls_minute"), hour: rows("calls_hour") }
  }

  // -------------------------------------------------------------------------------------------
  // writing (inside the store's commit transaction)

  /** Count `calls` and the newly stored `events` (each a failed call). */
  record(calls: ReadonlyArray<CallCount>, events: ReadonlyArray<FailureEvent>): void {
    if (calls.length === 0 && events.length === 0) return
    const tally = new CallTally()
    for (const c of calls) tally.add(c.minute, c.service, c.model, c.provider, c.ok, c.failed)
    for (const e of events) {
      const t = instantMs(e.occurredAt)
      tally.add(minuteOf(Number.isFinite(t) ? t : instantMs(e.ingestedAt)), e.service, e.model, e.provider, 0, 1)
    }
    const hours = new CallTally()
    for (const c of tally.take()) {
      if (!Number.isFinite(c.minute) || (c.ok === 0 && c.failed === 0)) continue
      const key = this.keyOf(c.service, c.model, c.provider)
      this.upsertMinute.run(c.minute, key, c.ok, c.failed)
      hours.add(floorHour(c.minute), c.service, c.model, c.provider, c.ok, c.failed)
    }
    for (const c of hours.take()) this.upsertHour.run(c.minute, this.keyOf(c.service, c.model, c.provider), c.ok, c.failed)
  }

  /** The webhook's `calls` post `id` is new (and is now remembered); false for a retry. */
  claimPost(id: string, now: number): boolean {
    return this.insertPost.run(id, now).changes === 1
  }

  private keyOf(service: string | null, model: string | null, provider: string | null): number {
    const key = JSON.stringify([service, model, provider])
    let id = this.keyIds.get(key)
    if (id !== undefined) return id
    id = (this.selectKey.get(key) as number | undefined) ?? Number(this.insertKey.run(key, service, model, provider).lastInsertRowid)
    if (this.keyIds.size >= KEY_CACHE_MAX) this.keyIds.clear()
    this.keyIds.set(key, id)
    return id
  }

  /** The key cache may hold ids of a transaction that was rolled back. */
  forgetKeys(): void {
    this.keyIds.clear()
  }

  // -------------------------------------------------------------------------------------------
  // reading

  /**
   * The rows of the minutes `[from, until)` touches: whole hours from the hour table, the rest
   * from the minute table (every count is in both). `hours: false` reads minutes only (a
   * timeline finer than an hour).
   */
  private rows(from: number, until: number, hours: boolean): Row[] {
    const m0 = minuteOf(from)
    if (m0 >= until) return []
    if (!hours) return this.rowsAt.minute.all(m0, until) as Row[]
    const h0 = floorHour(m0) === m0 ? m0 : floorHour(m0) + HOUR_MS
    const h1 = floorHour(until)
    if (h0 >= h1) return this.rowsAt.minute.all(m0, until) as Row[]
    return [
      ...(this.rowsAt.minute.all(m0, h0) as Row[]),
      ...(this.rowsAt.hour.all(h0, h1) as Row[]),
      ...(this.rowsAt.minute.all(h1, until) as Row[])
    ]
  }

  /**
   * The report's calls over `[since, until)` (edges rounded out to minutes), narrowed to a
   * service and a model when given, per model and per timeline bucket of `step` from `first`.
   */
  window(q: { readonly since: number; readonly until: number; readonly service?: string | undefined; readonly model?: string | undefined }, first: number, step: number): WindowCalls {
    let calls = 0
    const byModel = new Map<string | null, number>()
    const timeline = new Map<number, number>()
    for (const r of this.rows(q.since, q.until, step >= HOUR_MS)) {
      if ((q.service !== undefined && r.service !== q.service) || (q.model !== undefined && r.model !== q.model)) continue
      const n = r.ok + r.failed
      calls += n
      byModel.set(r.model, (byModel.get(r.model) ?? 0) + n)
      const bucket = first + Math.max(0, Math.floor((r.t - first) / step)) * step
      timeline.set(bucket, (timeline.get(bucket) ?? 0) + n)
    }
    return { calls, byModel, timeline }
  }

  /**
   * Calls and failed calls since `since` (rounded down to its minute) whose labels match
   * `labels` (the alert engine's group): a label absent from `labels` matches any value.
   */
  since(labels: CallLabels, since: number): CallTotals {
    const names = (["service", "model", "provider"] as const).filter((l) => Object.hasOwn(labels, l))
    const sig = names.join(",")
    let stmt = this.sums.get(sig)
    if (stmt === undefined) {
      const where = names.map((l) => `k.${l} IS @${l}`).join(" AND ")
      stmt = this.db.prepare(
        `SELECT COALESCE(SUM(c.ok), 0) AS ok, COALESCE(SUM(c.failed), 0) AS failed FROM calls_minute c
         ${names.length === 0 ? "" : "JOIN call_keys k ON k.id = c.key"} WHERE c.t >= @since ${names.length === 0 ? "" : `AND ${where}`}`
      )
      this.sums.set(sig, stmt)
    }
    const params: Record<string, string | number | null> = { since: minuteOf(since) }
    for (const l of names) params[l] = labels[l] ?? null
    return stmt.get(params) as CallTotals
  }

  /** Per model of a service (null: every service), calls and failed calls since `since`: the diagnosis's model health. */
  health(service: string | null, since: number, until: number): ModelHealth[] {
    const by = new Map<string | null, { calls: number; failed: number }>()
    for (const r of this.rows(since, until, false)) {
      if (service !== null && r.service !== service) continue
      const m = by.get(r.model) ?? { calls: 0, failed: 0 }
      m.calls += r.ok + r.failed
      m.failed += r.failed
      by.set(r.model, m)
    }
    return [...by]
      .map(([model, m]) => ({ model, calls: m.calls, failed: m.failed, failureRatio: m.calls > 0 ? m.failed / m.calls : null }))
      .sort((a, b) => b.calls - a.calls || (a.model ?? "").localeCompare(b.model ?? ""))
  }

  /** Retention: minutes after `retentionDays`, hours after max(retentionDays, 400 days); the posts' ids with the minutes. */
  prune(now: number, retentionDays: number): void {
    if (!(retentionDays > 0) || !Number.isFinite(now)) return
    const cutoff = minuteOf(now - retentionDays * DAY_MS)
    this.db.prepare(`DELETE FROM calls_minute WHERE t < ?`).run(cutoff)
    this.db.prepare(`DELETE FROM call_posts WHERE at < ?`).run(cutoff)
    this.db.prepare(`DELETE FROM calls_hour WHERE t < ?`).run(floorHour(now - Math.max(retentionDays, HOUR_MIN_RETENTION_DAYS) * DAY_MS))
  }
}

