/**
 * The report (CONTRACT section 6) from the pre-aggregated buckets.
 *
 * Buckets count events per (minute | hour | UTC day, series), a series being one fingerprint with
 * its labels (category, rateLimitKind, status, model, service, provider): every report figure,
 * "top" included, is a sum over them. The report covers a window [since, until) exactly and
 * cheaply: whole days / hours / minutes from the coarsest buckets that fit, and the partial
 * minutes at both edges from the events themselves. The timeline only uses levels that divide
 * its step, so 1m / 5m / 1h / 6h / 1d buckets stay exact; without a service/model filter it reads
 * the small per-category tables (timeline_minute / timeline_hour) instead of the per-series
 * buckets.
 */
import type { CallCounts } from "./CallCounts.js"
import type BetterSqlite3 from "better-sqlite3"
import { categories, rateLimitKinds, type Category, type RateLimitKind } from "../classify/Event.js"
import { formatDuration } from "../config/duration.js"
import type { Catalog } from "./catalog.js"
import { ceilTo, DAY, floorTo, HOUR, iso, MINUTE } from "./common.js"
import {
  NO_STATUS,
  StoreQueryError,
  type Report,
  type ReportModel,
  type ReportQuery,
  type ReportSource,
  type ReportTop,
  type TimelineBucket
} from "./report-shape.js"

const TOP_N = 10

interface TopAgg {
  count: number
  first: number
  last: number
}

interface IncidentLabels {
  fingerprint: string
  category: string
  rate_limit_kind: string | null
  status: number | null
  code: number | string | null
  message: string | null
  model: string | null
  service: string | null
  action: string
}

const zeroCategories = (): Record<Category, number> =>
  Object.fromEntries(categories.map((c) => [c, 0])) as Record<Category, number>
const zeroKinds = (): Record<RateLimitKind, number> =>
  Object.fromEntries(rateLimitKinds.map((k) => [k, 0])) as Record<RateLimitKind, number>

/** Timeline step for a window length: ≤1h → 1m, ≤6h → 5m, ≤2d → 1h, ≤14d → 6h, else 1d (at most ~1000 buckets). */
export const timelineStep = (windowMs: number): number => {
  if (windowMs <= HOUR) return MINUTE
  if (windowMs <= 6 * HOUR) return 5 * MINUTE
  if (windowMs <= 2 * DAY) return HOUR
  if (windowMs <= 14 * DAY) return 6 * HOUR
  return DAY * Math.max(1, Math.ceil(windowMs / DAY / 1000))
}

type Range = readonly [number, number]

/** Bucket granularities, coarsest first: tables buckets_day, buckets_hour, buckets_minute. */
const LEVELS = [DAY, HOUR, MINUTE] as const
type Level = (typeof LEVELS)[number]
const BUCKET_TABLE: Record<Level, string> = { [DAY]: "buckets_day", [HOUR]: "buckets_hour", [MINUTE]: "buckets_minute" }

interface Span {
  readonly level: Level
  readonly from: number
  readonly to: number
}

/**
 * Covers the minute-aligned range [from, to) with as few bucket rows as possible: the coarsest
 * level's whole buckets in the middle, finer levels at both ends. `levels` ends with MINUTE.
 */
const planBuckets = (from: number, to: number, levels: ReadonlyArray<Level>): Span[] => {
  const [level, ...finer] = levels
  if (level === undefined || from >= to) return []
  if (finer.length === 0) return [{ level, from, to }]
  const a = ceilTo(from, level)
  const b = floorTo(to, level)
  if (a >= b) return planBuckets(from, to, finer)
  return [...planBuckets(from, a, finer), { level, from: a, to: b }, ...planBuckets(b, to, finer)]
}

/**
 * Splits [since, until) into the partial minutes at both edges (read from events) and bucket
 * spans: one plan for the timeline (only levels that divide the timeline step) and one for the
 * per-series totals (every level).
 */
const planWindow = (since: number, until: number, step: number, timelineLevels: ReadonlyArray<Level>) => {
  const m0 = ceilTo(since, MINUTE)
  const m1 = floorTo(until, MINUTE)
  if (m0 >= m1) return { events: [[since, until] as Range], timeline: [], series: [] }
  const events: Range[] = []
  if (since < m0) events.push([since, m0])
  if (m1 < until) events.push([m1, until])
  return {
    events,
    timeline: planBuckets(m0, m1, timelineLevels.filter((l) => step % l === 0)),
    series: planBuckets(m0, m1, LEVELS)
  }
}

export class Reporter {
  /** Report statements per bucket level. */
  private readonly timelineAt: ReadonlyMap<Level, BetterSqlite3.Statement>
  private readonly categoryTimelineAt: ReadonlyMap<Level, BetterSqlite3.Statement>
  private readonly seriesAt: ReadonlyMap<Level, BetterSqlite3.Statement>
  private readonly reportEvents: BetterSqlite3.Statement
  private readonly selectIncidentById: BetterSqlite3.Statement
  private readonly selectCounterTotals: BetterSqlite3.Statement
  private readonly readTx: <A>(f: () => A) => A

  constructor(
    db: BetterSqlite3.Database,
    private readonly catalog: Catalog,
    private readonly checkpoints: { all(): ReadonlyArray<{ readonly path: string; readonly offset: number; readonly size: number }> },
    private readonly calls: CallCounts
  ) {
    // per bucket table and range: counts per (timeline bucket start, category), and per series
    // with first/last seen (few rows: the grouping happens in SQLite, not in JS)
    const labelFilter = "(@service IS NULL OR x.service = @service) AND (@model IS NULL OR x.model = @model)"
    const timelineFrom = (table: string) =>
      db.prepare(
        `SELECT b.t - b.t % @step AS s, x.category AS category, sum(b.count) AS n
         FROM ${table} b JOIN series x ON x.id = b.series
         WHERE b.t >= @from AND b.t < @to AND ${labelFilter}
         GROUP BY s, x.category`
      )
    this.timelineAt = new Map(LEVELS.map((l) => [l, timelineFrom(BUCKET_TABLE[l])]))
    // the unfiltered timeline (the common case) reads the tiny per-category tables instead
    const categoryTimelineFrom = (table: string) =>
      db.prepare(
        `SELECT t - t % @step AS s, category, sum(count) AS n FROM ${table}
         WHERE t >= @from AND t < @to GROUP BY s, category`
      )
    this.categoryTimelineAt = new Map([
      [HOUR, categoryTimelineFrom("timeline_hour")],
      [MINUTE, categoryTimelineFrom("timeline_minute")]
    ])
    const seriesFrom = (table: string) =>
      db.prepare(
        `SELECT b.series AS series, sum(b.count) AS n, min(b.first_seen) AS f, max(b.last_seen) AS l
         FROM ${table} b JOIN series x ON x.id = b.series
         WHERE b.t >= @from AND b.t < @to AND ${labelFilter}
         GROUP BY b.series`
      )
    this.seriesAt = new Map(LEVELS.map((l) => [l, seriesFrom(BUCKET_TABLE[l])]))
    this.reportEvents = db.prepare(
      `SELECT occurred_at - occurred_at % ? AS s, series, count(*) AS n, min(occurred_at) AS f, max(occurred_at) AS l
       FROM event_rows WHERE occurred_at >= ? AND occurred_at < ? GROUP BY s, series`
    )
    this.selectIncidentById = db.prepare(
      "SELECT fingerprint, category, rate_limit_kind, status, code, message, model, service, action FROM incidents WHERE id = ?"
    )
    this.selectCounterTotals = db.prepare(
      `SELECT coalesce(sum(lines_read), 0) AS linesRead, coalesce(sum(ignored), 0) AS ignored,
         coalesce(sum(failures), 0) AS failures FROM ingest_counters`
    )
    this.readTx = db.transaction((f: () => unknown) => f()).deferred as <A>(f: () => A) => A
  }

  /**
   * CONTRACT section 6 over [since, until), read from one snapshot. `alerts` and `tickets` are 0:
   * the caller fills them. Throws StoreQueryError("bad_window") unless since < until.
   */
  report(q: ReportQuery): Report {
    if (!Number.isFinite(q.since) || !Number.isFinite(q.until) || q.until <= q.since) {
      throw new StoreQueryError({ reason: "bad_window", message: "the report window needs since < until" })
    }
    return this.readTx(() => this.build(q))
  }

  private build(q: ReportQuery): Report {
    const { since, until } = q
    const step = timelineStep(until - since)
    const first = floorTo(since, step)
    const filtered = q.service !== undefined || q.model !== undefined
    const plan = planWindow(since, until, step, filtered ? LEVELS : [HOUR, MINUTE])
    const keep = (service: string | null, model: string | null): boolean =>
      (q.service === undefined || service === q.service) && (q.model === undefined || model === q.model)

    const timeline: Array<{ start: number; byCategory: Record<Category, number> }> = []
    for (let t = first; t < until; t += step) timeline.push({ start: t, byCategory: zeroCategories() })
    const addTimeline = (s: number, category: string, n: number): void => {
      const bucket = timeline[Math.floor((s - first) / step)]
      if (bucket !== undefined) bucket.byCategory[category as Category] = (bucket.byCategory[category as Category] ?? 0) + n
    }
    /** Window totals per series id. */
    const perSeries = new Map<number, TopAgg>()
    const addSeries = (id: number, n: number, f: number, l: number): void => {
      const a = perSeries.get(id)
      if (a === undefined) perSeries.set(id, { count: n, first: f, last: l })
      else {
        a.count += n
        if (f < a.first) a.first = f
        if (l > a.last) a.last = l
      }
    }

    // whole days, hours and minutes from the buckets
    const params = { step, from: 0, to: 0, service: q.service ?? null, model: q.model ?? null }
    for (const span of plan.timeline) {
      params.from = span.from
      params.to = span.to
      const stmt = filtered ? this.timelineAt.get(span.level)! : this.categoryTimelineAt.get(span.level)!
      for (const r of stmt.all(filtered ? params : { step, from: span.from, to: span.to }) as Array<{ s: number; category: string; n: number }>) {
        addTimeline(r.s, r.category, r.n)
      }
    }
    for (const span of plan.series) {
      params.from = span.from
      params.to = span.to
      for (const r of this.seriesAt.get(span.level)!.all(params) as Array<{ series: number; n: number; f: number; l: number }>) {
        addSeries(r.series, r.n, r.f, r.l)
      }
    }
    // partial minutes at the edges from the events
    for (const [a, b] of plan.events) {
      for (const r of this.reportEvents.all(step, a, b) as Array<{ s: number; series: number; n: number; f: number; l: number }>) {
        const series = this.catalog.series(r.series)
        if (series === undefined || !keep(series.service, series.model)) continue
        addTimeline(r.s, series.category, r.n)
        addSeries(series.id, r.n, r.f, r.l)
      }
    }

    // fold the series into the report's counts and the fingerprints' totals
    let total = 0
    const byCategory = zeroCategories()
    const byRateLimitKind = zeroKinds()
    const byStatus: Record<string, number> = {}
    const byProvider: Record<string, number> = {}
    const byModel = new Map<string | null, { total: number; byCategory: Partial<Record<Category, number>> }>()
    const tops = new Map<number, TopAgg>()
    for (const [id, a] of perSeries) {
      const series = this.catalog.series(id)
      if (series === undefined) continue
      const n = a.count
      const c = series.category as Category
      total += n
      byCategory[c] = (byCategory[c] ?? 0) + n
      const kind = series.rateLimitKind as RateLimitKind | null
      if (kind !== null) byRateLimitKind[kind] = (byRateLimitKind[kind] ?? 0) + n
      const sk = series.status === null ? NO_STATUS : String(series.status)
      byStatus[sk] = (byStatus[sk] ?? 0) + n
      if (series.provider !== null) byProvider[series.provider] = (byProvider[series.provider] ?? 0) + n
      let m = byModel.get(series.model)
      if (m === undefined) {
        m = { total: 0, byCategory: {} }
        byModel.set(series.model, m)
      }
      m.total += n
      m.byCategory[c] = (m.byCategory[c] ?? 0) + n
      const top = tops.get(series.incident)
      if (top === undefined) tops.set(series.incident, { count: n, first: a.first, last: a.last })
      else {
        top.count += n
        if (a.first < top.first) top.first = a.first
        if (a.last > top.last) top.last = a.last
      }
    }

    const ranked = [...tops].sort((x, y) => y[1].count - x[1].count || y[1].last - x[1].last || x[0] - y[0])
    const top: ReportTop[] = []
    for (const [id, a] of ranked.slice(0, TOP_N)) {
      const r = this.selectIncidentById.get(id) as IncidentLabels | undefined
      if (r === undefined) continue
      top.push({
        fingerprint: r.fingerprint,
        category: r.category as Category,
        rateLimitKind: r.rate_limit_kind as RateLimitKind | null,
        status: r.status,
        code: r.code,
        message: r.message,
        model: r.model,
        service: r.service,
        count: a.count,
        firstSeen: iso(a.first),
        lastSeen: iso(a.last),
        action: r.action
      })
    }

    // the calls of the same window (CONTRACT section 6): models with calls and no failure are listed too
    const called = this.calls.window(q, first, step)
    for (const model of called.byModel.keys()) if (!byModel.has(model)) byModel.set(model, { total: 0, byCategory: {} })
    const ratio = (failures: number, calls: number): number | null => (calls > 0 ? failures / calls : null)
    const models: ReportModel[] = [...byModel]
      .map(([model, m]) => {
        const calls = called.byModel.get(model) ?? 0
        return { model, total: m.total, byCategory: m.byCategory, calls, failureRatio: ratio(m.total, calls) }
      })
      .sort((a, b) => b.total - a.total || b.calls - a.calls || (a.model ?? "").localeCompare(b.model ?? ""))
    const ingest = this.selectCounterTotals.get() as { linesRead: number; ignored: number; failures: number }
    const sources: ReportSource[] = this.checkpoints.all()
      .map((c) => ({ source: `file:${c.path}`, offset: c.offset, lagBytes: Math.max(0, c.size - c.offset) }))
      .sort((a, b) => a.source.localeCompare(b.source))

    return {
      window: { since: iso(since), until: iso(until), step: formatDuration(step) },
      total,
      byCategory,
      byRateLimitKind,
      byStatus,
      calls: called.calls,
      failureRatio: ratio(total, called.calls),
      byProvider,
      byModel: models,
      top,
      timeline: timeline.map((b): TimelineBucket => ({ start: iso(b.start), byCategory: b.byCategory, calls: called.timeline.get(b.start) ?? 0 })),
      alerts: { firing: 0 },
      tickets: { open: 0 },
      ingest: { ...ingest, sources }
    }
  }
}
