/**
 * The event store: events, incidents (per fingerprint), read checkpoints, ingest counters and the
 * pre-aggregated buckets behind the report (schema: migrations/001_core.sql).
 *
 * `commit` is the exactly-once mechanism: the events of one or more batches, their aggregates,
 * the ingest counters and the read checkpoints are written in ONE transaction.
 *
 * Hot-path design: one prepared INSERT per event; everything else (incidents, buckets, counters)
 * is grouped in memory first and written once per key per commit.
 *
 * Buckets count events per (minute | hour | UTC day, series), a series being one fingerprint with
 * its labels (category, rateLimitKind, status, model, service): every report figure, "top"
 * included, is a sum over them. The report covers a window [since, until) exactly and cheaply:
 * whole days / hours / minutes from the coarsest buckets that fit, and the partial minutes at
 * both edges from the events themselves. The timeline only uses levels that divide its step, so
 * 1m / 5m / 1h / 6h / 1d buckets stay exact; without a service/model filter it reads the small
 * per-category tables (timeline_minute / timeline_hour) instead of the per-series buckets.
 */
import type BetterSqlite3 from "better-sqlite3"
import { Context, Duration, Effect, Layer } from "effect"
import * as fs from "node:fs"
import {
  categories,
  rateLimitKinds,
  type Category,
  type FailureEvent,
  instantMs,
  type RateLimitKind,
  type Severity
} from "../classify/Event.js"
import type { CallCount, CommitResult, IngestBatch, SourceCheckpoint } from "../sources/Batch.js"
import { formatDuration } from "../config/duration.js"
import { CallCounts } from "./CallCounts.js"
import { Database } from "./Database.js"
import { decodeCursor, encodeCursor } from "./cursor.js"
import {
  NO_STATUS,
  StoreQueryError,
  type EventPage,
  type Incident,
  type IncidentPage,
  type IncidentsQuery,
  type IngestTotals,
  type ListEventsQuery,
  type ModelSeen,
  type Report,
  type ReportModel,
  type ReportQuery,
  type ReportSource,
  type ReportTop,
  type TimelineBucket
} from "./report-shape.js"

export * from "./report-shape.js"

const MINUTE = 60_000
const HOUR = 3_600_000
const DAY = 86_400_000
/** Hour buckets outlive events: a year-over-year report stays possible. */
const HOUR_BUCKET_MIN_RETENTION_DAYS = 400
const PRUNE_CHUNK = 5_000
/** Events deleted per statement when pruning for size: a few ms each, so the daemon keeps answering between them. */
const SIZE_PRUNE_CHUNK = 1_000
/** Size pruning stops under this share of `database.maxSize`. */
const SIZE_LOW_WATER = 0.9
const MAX_PAGE = 1_000
const TOP_N = 10
const ACTIVE_MS = HOUR
const SERIES_CACHE_MAX = 200_000

// ---------------------------------------------------------------------------------------------
// rows

type SqlCode = number | string | bigint | null

interface EventRow {
  id: string
  occurred_at: number
  ingested_at: number
  source: string
  line: number | null
  service: string | null
  status: number | null
  code: number | string | null
  message: string | null
  model: string | null
  request_id: string | null
  endpoint: string | null
  stream: number | null
  category: string
  rate_limit_kind: string | null
  severity: string
  retryable: number
  action: string
  fingerprint: string
  body_not_json: number
  sample: string
  provider: string | null
}

interface IncidentRow {
  id: number
  fingerprint: string
  category: string
  rate_limit_kind: string | null
  severity: string
  retryable: number
  status: number | null
  code: number | string | null
  model: string | null
  service: string | null
  message: string | null
  action: string
  count: number
  first_seen: number
  last_seen: number
  sample: string
  sample_event_id: string
}

interface SourceRow {
  key: string
  path: string
  byte_offset: number
  line: number
  size: number
  head_hash: string
  head_length: number
}

/** One fingerprint with one label set (table `series`): the unit of the report buckets. */
interface Series {
  readonly id: number
  readonly incident: number
  readonly category: string
  readonly rateLimitKind: string | null
  readonly status: number | null
  readonly model: string | null
  readonly service: string | null
  readonly provider: string | null
}

interface SeriesRow {
  id: number
  key: string
  incident: number
  category: string
  rate_limit_kind: string | null
  status: number | null
  model: string | null
  service: string | null
  provider: string | null
}

interface TopAgg {
  count: number
  first: number
  last: number
}

const EVENT_COLUMNS =
  "id, occurred_at, ingested_at, source, line, service, status, code, message, model, request_id, endpoint, " +
  "stream, category, rate_limit_kind, severity, retryable, action, fingerprint, body_not_json, sample, provider"

const INCIDENT_COLUMNS =
  "id, fingerprint, category, rate_limit_kind, severity, retryable, status, code, model, service, message, action, " +
  "count, first_seen, last_seen, sample, sample_event_id"

// ---------------------------------------------------------------------------------------------
// small pure helpers

const mod = (x: number, m: number): number => ((x % m) + m) % m
const floorTo = (x: number, unit: number): number => x - mod(x, unit)
const ceilTo = (x: number, unit: number): number => {
  const f = floorTo(x, unit)
  return f === x ? x : f + unit
}
const iso = (ms: number): string => new Date(ms).toISOString()

/** Epoch ms of an ISO instant; falls back when the text is not a date (the store never fails a batch on it). */
const toMs = (text: string, fallback: number): number => {
  const t = instantMs(text)
  return Number.isFinite(t) ? t : fallback
}

/** Integer codes are bound as INTEGER (better-sqlite3 binds JS numbers as REAL). */
const sqlCode = (code: number | string | null): SqlCode =>
  typeof code === "number" && Number.isSafeInteger(code) ? BigInt(code) : code

const bool = (b: boolean | null): number | null => (b === null ? null : b ? 1 : 0)

const seriesKey = (
  fingerprint: string,
  category: string,
  kind: string | null,
  status: number | null,
  model: string | null,
  service: string | null,
  provider: string | null
): string =>
  // the provider joins the key only when known: series written before it existed keep their keys
  fingerprint + JSON.stringify(provider === null ? [category, kind, status, model, service] : [category, kind, status, model, service, provider])

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

/** Events are paged by (occurredAt, id), newest first. */
export const encodeEventCursor = (occurredAtMs: number, id: string): string => encodeCursor("events", [occurredAtMs, id])

const badCursor = (): StoreQueryError =>
  new StoreQueryError({ reason: "bad_cursor", message: "cursor is not a nextCursor returned by this endpoint" })

/** A position of `list` of the form [epoch ms, id]; throws StoreQueryError("bad_cursor"). */
const decodeKeyset = (list: string, cursor: string): readonly [number, string] => {
  let p: ReadonlyArray<number | string>
  try {
    p = decodeCursor(list, cursor)
  } catch {
    throw badCursor()
  }
  if (p.length !== 2 || typeof p[0] !== "number" || typeof p[1] !== "string") throw badCursor()
  return [p[0], p[1]]
}

export const decodeEventCursor = (cursor: string): readonly [number, string] => decodeKeyset("events", cursor)

/** Message of an incident with its model name and digits masked: "the same failure, any model". */
const modelFreeMessage = (message: string | null, model: string | null): string => {
  let m = message ?? ""
  if (model !== null && model !== "") {
    m = m.split(model).join("<model>")
    const base = model.slice(model.lastIndexOf("/") + 1)
    if (base !== "" && base !== model) m = m.split(base).join("<model>")
  }
  return m.replace(/\d+/g, "#")
}

const rowToEvent = (r: EventRow): FailureEvent => ({
  id: r.id,
  occurredAt: iso(r.occurred_at),
  ingestedAt: iso(r.ingested_at),
  source: r.source,
  line: r.line,
  service: r.service,
  status: r.status,
  code: r.code,
  message: r.message,
  model: r.model,
  requestId: r.request_id,
  endpoint: r.endpoint,
  stream: r.stream === null ? null : r.stream === 1,
  category: r.category as Category,
  rateLimitKind: r.rate_limit_kind as RateLimitKind | null,
  severity: r.severity as Severity,
  retryable: r.retryable === 1,
  action: r.action,
  fingerprint: r.fingerprint,
  bodyNotJson: r.body_not_json === 1,
  provider: r.provider,
  sample: r.sample
})

const rowToSeries = (r: SeriesRow): Series => ({
  id: r.id,
  incident: r.incident,
  category: r.category,
  rateLimitKind: r.rate_limit_kind,
  status: r.status,
  model: r.model,
  service: r.service,
  provider: r.provider
})

const rowToCheckpoint = (r: SourceRow): SourceCheckpoint => ({
  key: r.key,
  path: r.path,
  offset: r.byte_offset,
  line: r.line,
  size: r.size,
  headHash: r.head_hash,
  headLength: r.head_length
})

const zeroCategories = (): Record<Category, number> =>
  Object.fromEntries(categories.map((c) => [c, 0])) as Record<Category, number>
const zeroKinds = (): Record<RateLimitKind, number> =>
  Object.fromEntries(rateLimitKinds.map((k) => [k, 0])) as Record<RateLimitKind, number>

const checkLimit = (limit: number, max: number): number => {
  if (!Number.isFinite(limit) || limit < 1) {
    throw new StoreQueryError({ reason: "bad_limit", message: `limit must be a positive integer, got ${limit}` })
  }
  return Math.min(max, Math.floor(limit))
}

// ---------------------------------------------------------------------------------------------
// per-commit aggregation

/** What one commit adds to one series. */
interface SeriesAgg {
  readonly fingerprint: string
  readonly first: FailureEvent
  count: number
  firstMs: number
  lastMs: number
  latest: FailureEvent
  readonly minutes: Map<number, TopAgg>
  readonly hours: Map<number, TopAgg>
  readonly days: Map<number, TopAgg>
}

/** A WHERE clause from optional filters: a condition is added only when all its values are given. */
class Where {
  private readonly conditions: string[] = []
  readonly params: Array<string | number> = []

  add(condition: string, ...values: ReadonlyArray<string | number | undefined>): this {
    if (values.some((v) => v === undefined)) return this
    this.conditions.push(condition)
    for (const v of values) this.params.push(v!)
    return this
  }

  /** ` WHERE a AND b`, or nothing. */
  get sql(): string {
    return this.conditions.length > 0 ? ` WHERE ${this.conditions.join(" AND ")}` : ""
  }
}

/** What one commit has written so far: its result, and the aggregates written at its end. */
interface Written {
  readonly inserted: FailureEvent[]
  duplicates: number
  readonly aggs: Map<string, SeriesAgg>
  /** `<minute>|<category>` -> events */
  readonly categoryMinutes: Map<string, number>
  /** source -> [lines read, ignored, failures] */
  readonly counters: Map<string, [number, number, number]>
}

/** The series keys of recent fingerprints, with what else makes the key (building one is a JSON.stringify). */
type SeenSeries = Pick<FailureEvent, "category" | "rateLimitKind" | "status" | "model" | "service" | "provider"> & { readonly key: string }
const recentSeries = new Map<string, SeenSeries>()

function seriesKeyOf(e: FailureEvent): string {
  const s = recentSeries.get(e.fingerprint)
  if (s !== undefined && s.category === e.category && s.rateLimitKind === e.rateLimitKind && s.status === e.status && s.model === e.model && s.service === e.service && s.provider === e.provider) {
    return s.key
  }
  const key = seriesKey(e.fingerprint, e.category, e.rateLimitKind, e.status, e.model, e.service, e.provider)
  if (recentSeries.size >= 4096) recentSeries.clear()
  recentSeries.set(e.fingerprint, { category: e.category, rateLimitKind: e.rateLimitKind, status: e.status, model: e.model, service: e.service, provider: e.provider, key })
  return key
}

/** Add a stored event to its series' aggregates and the category timeline. */
function aggregate(w: Written, e: FailureEvent, ms: number): void {
  const key = seriesKeyOf(e)
  let a = w.aggs.get(key)
  if (a === undefined) {
    a = { fingerprint: e.fingerprint, first: e, count: 0, firstMs: ms, lastMs: ms, latest: e, minutes: new Map(), hours: new Map(), days: new Map() }
    w.aggs.set(key, a)
  }
  a.count++
  if (ms < a.firstMs) a.firstMs = ms
  if (ms >= a.lastMs) {
    a.lastMs = ms
    a.latest = e
  }
  const minute = floorTo(ms, MINUTE)
  const ck = `${minute}|${e.category}`
  w.categoryMinutes.set(ck, (w.categoryMinutes.get(ck) ?? 0) + 1)
  bumpTop(a.minutes, minute, ms)
  bumpTop(a.hours, floorTo(ms, HOUR), ms)
  bumpTop(a.days, floorTo(ms, DAY), ms)
}

const bumpTop = (m: Map<number, TopAgg>, t: number, ms: number): void => {
  const a = m.get(t)
  if (a === undefined) m.set(t, { count: 1, first: ms, last: ms })
  else {
    a.count++
    if (ms < a.first) a.first = ms
    if (ms > a.last) a.last = ms
  }
}

// ---------------------------------------------------------------------------------------------

export class EventStore {
  private readonly insertEvent: BetterSqlite3.Statement
  private readonly upsertIncident: BetterSqlite3.Statement
  private readonly upsertMinute: BetterSqlite3.Statement
  private readonly upsertHour: BetterSqlite3.Statement
  private readonly upsertDay: BetterSqlite3.Statement
  private readonly upsertCounter: BetterSqlite3.Statement
  private readonly upsertCheckpoint: BetterSqlite3.Statement
  private readonly insertSeries: BetterSqlite3.Statement
  private readonly selectSeriesByKey: BetterSqlite3.Statement
  private readonly selectSeriesById: BetterSqlite3.Statement
  private readonly selectStatusCategories: BetterSqlite3.Statement
  private readonly selectCheckpoint: BetterSqlite3.Statement
  private readonly selectCheckpoints: BetterSqlite3.Statement
  private readonly deleteCheckpoint: BetterSqlite3.Statement
  private readonly selectEvent: BetterSqlite3.Statement
  private readonly selectCounters: BetterSqlite3.Statement
  private readonly selectCounterTotals: BetterSqlite3.Statement
  private readonly selectIncidentById: BetterSqlite3.Statement
  private readonly selectIncidentByFp: BetterSqlite3.Statement
  private readonly selectFailureTotals: BetterSqlite3.Statement
  private readonly selectModelsSeen: BetterSqlite3.Statement
  private readonly selectSameFailure: BetterSqlite3.Statement
  /** Report statements per bucket level. */
  private readonly timelineAt: ReadonlyMap<Level, BetterSqlite3.Statement>
  private readonly categoryTimelineAt: ReadonlyMap<Level, BetterSqlite3.Statement>
  private readonly upsertCategoryMinute: BetterSqlite3.Statement
  private readonly upsertCategoryHour: BetterSqlite3.Statement
  private readonly pruneCategoryMinute: BetterSqlite3.Statement
  private readonly pruneCategoryHour: BetterSqlite3.Statement
  private readonly seriesAt: ReadonlyMap<Level, BetterSqlite3.Statement>
  private readonly reportEvents: BetterSqlite3.Statement
  private readonly pruneEvents: BetterSqlite3.Statement
  private readonly pruneOldestEvents: BetterSqlite3.Statement
  private readonly pruneMinute: BetterSqlite3.Statement
  private readonly pruneHour: BetterSqlite3.Statement
  private readonly pruneDay: BetterSqlite3.Statement
  private readonly commitTx: (batches: ReadonlyArray<IngestBatch>, pending: Map<string, Series>) => CommitResult
  private readonly readTx: <A>(f: () => A) => A

  /**
   * The `series` table by key and by id, filled on demand (rows written by another process, e.g.
   * `faultline replay` beside the daemon, are found in the database). Only committed rows are
   * cached; the cache is dropped when it grows past SERIES_CACHE_MAX (fingerprints gone wild).
   */
  private readonly seriesByKey = new Map<string, Series>()
  private readonly seriesById = new Map<number, Series>()
  /** Statements whose SQL depends on which filters are given (GET /v1/events, incidents), prepared once each. */
  private readonly dynamic = new Map<string, BetterSqlite3.Statement>()

  /** Calls counted (successful ones, and every stored event as a failed one): migrations/006_calls.sql. */
  readonly calls: CallCounts

  constructor(private readonly db: BetterSqlite3.Database) {
    this.calls = new CallCounts(db)
    this.insertEvent = db.prepare(
      `INSERT INTO events (${EVENT_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)
       ON CONFLICT (id) DO NOTHING`
    )
    const latest = (col: string) => `${col} = CASE WHEN excluded.last_seen >= last_seen THEN excluded.${col} ELSE ${col} END`
    this.upsertIncident = db.prepare(
      `INSERT INTO incidents (fingerprint, category, rate_limit_kind, severity, retryable, status, code, model, service,
         message, action, count, first_seen, last_seen, sample, sample_event_id)
       VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)
       ON CONFLICT (fingerprint) DO UPDATE SET
         count = count + excluded.count,
         first_seen = min(first_seen, excluded.first_seen),
         last_seen = max(last_seen, excluded.last_seen),
         ${["severity", "retryable", "code", "message", "action", "sample", "sample_event_id"].map(latest).join(",\n         ")}
       RETURNING id`
    )
    const bucketUpsert = (table: string) =>
      db.prepare(
        `INSERT INTO ${table} (t, series, count, first_seen, last_seen) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (t, series) DO UPDATE SET count = count + excluded.count,
           first_seen = min(first_seen, excluded.first_seen), last_seen = max(last_seen, excluded.last_seen)`
      )
    this.upsertMinute = bucketUpsert("buckets_minute")
    this.upsertHour = bucketUpsert("buckets_hour")
    this.upsertDay = bucketUpsert("buckets_day")
    this.upsertCounter = db.prepare(
      `INSERT INTO ingest_counters (source, lines_read, ignored, failures, updated_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (source) DO UPDATE SET lines_read = lines_read + excluded.lines_read,
         ignored = ignored + excluded.ignored, failures = failures + excluded.failures, updated_at = excluded.updated_at`
    )
    this.upsertCheckpoint = db.prepare(
      `INSERT INTO sources (key, path, byte_offset, line, size, head_hash, head_length, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET path = excluded.path, byte_offset = excluded.byte_offset, line = excluded.line,
         size = excluded.size, head_hash = excluded.head_hash, head_length = excluded.head_length,
         updated_at = excluded.updated_at`
    )
    this.insertSeries = db.prepare(
      `INSERT INTO series (key, incident, category, rate_limit_kind, status, model, service, provider) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (key) DO NOTHING`
    )
    const seriesCols = "id, key, incident, category, rate_limit_kind, status, model, service, provider"
    this.selectSeriesByKey = db.prepare(`SELECT ${seriesCols} FROM series WHERE key = ?`)
    this.selectSeriesById = db.prepare(`SELECT ${seriesCols} FROM series WHERE id = ?`)
    this.selectStatusCategories = db.prepare("SELECT DISTINCT category FROM series WHERE status = ?").pluck()
    const checkpointCols = "key, path, byte_offset, line, size, head_hash, head_length"
    this.selectCheckpoint = db.prepare(`SELECT ${checkpointCols} FROM sources WHERE key = ?`)
    this.selectCheckpoints = db.prepare(`SELECT ${checkpointCols} FROM sources ORDER BY path, key`)
    this.deleteCheckpoint = db.prepare("DELETE FROM sources WHERE key = ?")
    this.selectEvent = db.prepare(`SELECT ${EVENT_COLUMNS} FROM events WHERE id = ?`)
    this.selectCounters = db.prepare(
      "SELECT source, lines_read AS linesRead, ignored, failures FROM ingest_counters ORDER BY source"
    )
    this.selectCounterTotals = db.prepare(
      `SELECT coalesce(sum(lines_read), 0) AS linesRead, coalesce(sum(ignored), 0) AS ignored,
         coalesce(sum(failures), 0) AS failures FROM ingest_counters`
    )
    this.selectIncidentById = db.prepare(`SELECT ${INCIDENT_COLUMNS} FROM incidents WHERE id = ?`)
    this.selectIncidentByFp = db.prepare(`SELECT ${INCIDENT_COLUMNS} FROM incidents WHERE fingerprint = ?`)
    this.selectFailureTotals = db.prepare(
      `SELECT category, rate_limit_kind AS rateLimitKind, status, model, service, sum(count) AS count
       FROM incidents GROUP BY category, rate_limit_kind, status, model, service
       ORDER BY category, rate_limit_kind, status, model, service`
    )
    this.selectModelsSeen = db.prepare(
      `SELECT model, count(*) AS failures, max(occurred_at) AS last FROM events
       WHERE service IS ? AND occurred_at >= ? AND model IS NOT NULL
       GROUP BY model ORDER BY last DESC, model`
    )
    this.selectSameFailure = db.prepare(
      `SELECT model, message, last_seen FROM incidents
       WHERE category = ? AND rate_limit_kind IS ? AND status IS ? AND code IS ? AND service IS ?
         AND last_seen >= ? AND model IS NOT NULL
       ORDER BY last_seen DESC`
    )
    // report, per bucket table and range: counts per (timeline bucket start, category), and per
    // series with first/last seen (few rows: the grouping happens in SQLite, not in JS)
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
    const categoryUpsert = (table: string) =>
      db.prepare(
        `INSERT INTO ${table} (t, category, count) VALUES (?, ?, ?)
         ON CONFLICT (t, category) DO UPDATE SET count = count + excluded.count`
      )
    this.upsertCategoryMinute = categoryUpsert("timeline_minute")
    this.upsertCategoryHour = categoryUpsert("timeline_hour")
    const pruneCategory = (table: string) =>
      db.prepare(`DELETE FROM ${table} WHERE (t, category) IN (SELECT t, category FROM ${table} WHERE t < ? LIMIT ?)`)
    this.pruneCategoryMinute = pruneCategory("timeline_minute")
    this.pruneCategoryHour = pruneCategory("timeline_hour")
    const seriesFrom = (table: string) =>
      db.prepare(
        `SELECT b.series AS series, sum(b.count) AS n, min(b.first_seen) AS f, max(b.last_seen) AS l
         FROM ${table} b JOIN series x ON x.id = b.series
         WHERE b.t >= @from AND b.t < @to AND ${labelFilter}
         GROUP BY b.series`
      )
    this.seriesAt = new Map(LEVELS.map((l) => [l, seriesFrom(BUCKET_TABLE[l])]))
    this.reportEvents = db.prepare(
      `SELECT occurred_at - occurred_at % ? AS s, fingerprint, category, rate_limit_kind, status, model, service, provider,
         count(*) AS n, min(occurred_at) AS f, max(occurred_at) AS l
       FROM events WHERE occurred_at >= ? AND occurred_at < ?
       GROUP BY s, fingerprint, category, rate_limit_kind, status, model, service, provider`
    )
    this.pruneEvents = db.prepare(
      "DELETE FROM events WHERE seq IN (SELECT seq FROM events WHERE occurred_at < ? ORDER BY occurred_at LIMIT ?)"
    )
    // the oldest first (events_time); rowids of events arrive roughly in time order, so whole pages empty
    this.pruneOldestEvents = db.prepare(
      "DELETE FROM events WHERE seq IN (SELECT seq FROM events ORDER BY occurred_at, id LIMIT ?) RETURNING occurred_at"
    ).pluck()
    const pruneBuckets = (table: string) =>
      db.prepare(`DELETE FROM ${table} WHERE (t, series) IN (SELECT t, series FROM ${table} WHERE t < ? LIMIT ?)`)
    this.pruneMinute = pruneBuckets("buckets_minute")
    this.pruneHour = pruneBuckets("buckets_hour")
    this.pruneDay = pruneBuckets("buckets_day")

    this.commitTx = db.transaction((batches: ReadonlyArray<IngestBatch>, pending: Map<string, Series>) =>
      this.write(batches, pending)
    ).immediate as (batches: ReadonlyArray<IngestBatch>, pending: Map<string, Series>) => CommitResult
    this.readTx = db.transaction((f: () => unknown) => f()).deferred as <A>(f: () => A) => A
  }

  // -------------------------------------------------------------------------------------------
  // writing

  /**
   * Stores the batches in ONE transaction: events (a duplicate id is counted, not stored),
   * incidents, buckets, ingest counters and checkpoints. Either all of it or nothing.
   */
  commit(batches: ReadonlyArray<IngestBatch>): CommitResult {
    if (batches.length === 0) return { inserted: [], duplicates: 0 }
    const pending = new Map<string, Series>()
    let result: CommitResult
    try {
      result = this.commitTx(batches, pending)
    } catch (e) {
      this.calls.forgetKeys()
      throw e
    }
    for (const [key, series] of pending) this.cacheSeries(key, series)
    return result
  }

  /**
   * The transaction's body, in three steps kept as separate functions: one big function took
   * V8 ~40 ms to optimize (twice as long under load), and was optimized again after each deopt.
   */
  private write(batches: ReadonlyArray<IngestBatch>, pending: Map<string, Series>): CommitResult {
    const now = Date.now()
    const w: Written = { inserted: [], duplicates: 0, aggs: new Map(), categoryMinutes: new Map(), counters: new Map() }
    for (const batch of batches) {
      const failures = this.insertEvents(batch.events, now, w)
      const c = w.counters.get(batch.source)
      if (c === undefined) w.counters.set(batch.source, [batch.linesRead, batch.ignored, failures])
      else {
        c[0] += batch.linesRead
        c[1] += batch.ignored
        c[2] += failures
      }
      const cp = batch.checkpoint
      if (cp !== null) {
        this.upsertCheckpoint.run(cp.key, cp.path, cp.offset, cp.line, cp.size, cp.headHash, cp.headLength, now)
      }
    }
    const incidentIds = this.upsertIncidents(w.aggs)
    this.upsertAggregates(w, incidentIds, pending, now)
    // calls: each webhook `calls` post once (its id), the rest as they come
    let repeated: Set<string> | undefined
    const calls: CallCount[] = []
    for (const b of batches) {
      if (b.calls !== undefined) for (const c of b.calls) calls.push(c)
      for (const post of b.callPosts ?? []) {
        if (post.id !== null && !this.calls.claimPost(post.id, now)) (repeated ??= new Set()).add(post.id)
        else for (const c of post.calls) calls.push(c)
      }
    }
    this.calls.record(calls, w.inserted)
    return repeated === undefined ? { inserted: w.inserted, duplicates: w.duplicates } : { inserted: w.inserted, duplicates: w.duplicates, repeatedCallPosts: repeated }
  }

  /** Insert the events (a duplicate id is counted, not stored) and add them to the aggregates. Returns how many were stored. */
  private insertEvents(events: ReadonlyArray<FailureEvent>, now: number, w: Written): number {
    const insert = this.insertEvent
    let failures = 0
    for (const e of events) {
      const ingestedMs = toMs(e.ingestedAt, now)
      const ms = toMs(e.occurredAt, ingestedMs)
      const changes = insert.run(
        e.id,
        ms,
        ingestedMs,
        e.source,
        e.line,
        e.service,
        e.status,
        sqlCode(e.code),
        e.message,
        e.model,
        e.requestId,
        e.endpoint,
        bool(e.stream),
        e.category,
        e.rateLimitKind,
        e.severity,
        e.retryable ? 1 : 0,
        e.action,
        e.fingerprint,
        e.bodyNotJson ? 1 : 0,
        e.sample,
        e.provider
      ).changes
      if (changes === 0) {
        w.duplicates++
        continue
      }
      failures++
      w.inserted.push(e)
      aggregate(w, e, ms)
    }
    return failures
  }

  /** One upsert per fingerprint (normally one series per fingerprint); returns the incident ids. */
  private upsertIncidents(aggs: ReadonlyMap<string, SeriesAgg>): Map<string, number> {
    const fps = new Map<string, { count: number; first: number; last: number; latest: FailureEvent }>()
    for (const a of aggs.values()) {
      const f = fps.get(a.fingerprint)
      if (f === undefined) fps.set(a.fingerprint, { count: a.count, first: a.firstMs, last: a.lastMs, latest: a.latest })
      else {
        f.count += a.count
        if (a.firstMs < f.first) f.first = a.firstMs
        if (a.lastMs >= f.last) {
          f.last = a.lastMs
          f.latest = a.latest
        }
      }
    }
    const incidentIds = new Map<string, number>()
    for (const [fingerprint, f] of fps) {
      const e = f.latest
      const row = this.upsertIncident.get(
        fingerprint,
        e.category,
        e.rateLimitKind,
        e.severity,
        e.retryable ? 1 : 0,
        e.status,
        sqlCode(e.code),
        e.model,
        e.service,
        e.message,
        e.action,
        f.count,
        f.first,
        f.last,
        e.sample,
        e.id
      ) as { id: number }
      incidentIds.set(fingerprint, row.id)
    }
    return incidentIds
  }

  /** Series buckets (minute, hour, day), the per-category timelines and the ingest counters. */
  private upsertAggregates(w: Written, incidentIds: ReadonlyMap<string, number>, pending: Map<string, Series>, now: number): void {
    for (const [key, a] of w.aggs) {
      const id = this.seriesFor(key, a.first, incidentIds.get(a.fingerprint)!, pending)
      for (const [t, b] of a.minutes) this.upsertMinute.run(t, id, b.count, b.first, b.last)
      for (const [t, b] of a.hours) this.upsertHour.run(t, id, b.count, b.first, b.last)
      for (const [t, b] of a.days) this.upsertDay.run(t, id, b.count, b.first, b.last)
    }
    const categoryHours = new Map<string, number>()
    for (const [ck, n] of w.categoryMinutes) {
      const i = ck.indexOf("|")
      const minute = Number(ck.slice(0, i))
      const category = ck.slice(i + 1)
      this.upsertCategoryMinute.run(minute, category, n)
      const hk = `${floorTo(minute, HOUR)}|${category}`
      categoryHours.set(hk, (categoryHours.get(hk) ?? 0) + n)
    }
    for (const [hk, n] of categoryHours) {
      const i = hk.indexOf("|")
      this.upsertCategoryHour.run(Number(hk.slice(0, i)), hk.slice(i + 1), n)
    }
    for (const [source, [linesRead, ignored, failures]] of w.counters) {
      this.upsertCounter.run(source, linesRead, ignored, failures, now)
    }
  }

  private seriesFor(key: string, e: FailureEvent, incident: number, pending: Map<string, Series>): number {
    const known = this.seriesByKey.get(key) ?? pending.get(key) ?? this.seriesLookup(undefined, key)
    if (known !== undefined) return known.id
    this.insertSeries.run(key, incident, e.category, e.rateLimitKind, e.status, e.model, e.service, e.provider)
    const row = this.selectSeriesByKey.get(key) as SeriesRow
    pending.set(key, rowToSeries(row))
    return row.id
  }

  private cacheSeries(key: string, series: Series): void {
    if (this.seriesById.size >= SERIES_CACHE_MAX) {
      this.seriesById.clear()
      this.seriesByKey.clear()
    }
    this.seriesByKey.set(key, series)
    this.seriesById.set(series.id, series)
  }

  /** A committed series by id or by key, from the cache or the database. */
  private seriesLookup(id: number | undefined, key: string | undefined): Series | undefined {
    const cached = id !== undefined ? this.seriesById.get(id) : this.seriesByKey.get(key!)
    if (cached !== undefined) return cached
    const row = (id !== undefined ? this.selectSeriesById.get(id) : this.selectSeriesByKey.get(key)) as SeriesRow | undefined
    if (row === undefined) return undefined
    const series = rowToSeries(row)
    this.cacheSeries(row.key, series)
    return series
  }

  // -------------------------------------------------------------------------------------------
  // checkpoints

  checkpoint(key: string): SourceCheckpoint | null {
    const r = this.selectCheckpoint.get(key) as SourceRow | undefined
    return r === undefined ? null : rowToCheckpoint(r)
  }

  checkpoints(): SourceCheckpoint[] {
    return (this.selectCheckpoints.all() as SourceRow[]).map(rowToCheckpoint)
  }

  forgetCheckpoint(key: string): void {
    this.deleteCheckpoint.run(key)
  }

  // -------------------------------------------------------------------------------------------
  // events

  getEvent(id: string): FailureEvent | null {
    const r = this.selectEvent.get(id) as EventRow | undefined
    return r === undefined ? null : rowToEvent(r)
  }

  /**
   * Newest first (occurredAt desc, id desc), keyset-paginated. `since` inclusive, `until`
   * exclusive. A `rateLimitKind` filter implies category `rate_limit`. Throws StoreQueryError
   * ("bad_cursor", "bad_limit").
   */
  listEvents(q: ListEventsQuery): EventPage {
    const limit = checkLimit(q.limit, MAX_PAGE)
    let category = q.category
    if (q.status !== undefined && category === undefined && q.rateLimitKind === undefined) {
      // status has no index of its own: every stored event has a series, so the categories seen
      // with this status tell whether any event can match, and usually pick the category index.
      const seen = this.selectStatusCategories.all(q.status) as string[]
      if (seen.length === 0) return { events: [], nextCursor: null }
      if (seen.length === 1) category = seen[0]
    }
    if (q.rateLimitKind !== undefined) category ??= "rate_limit"
    const where = new Where()
      .add("rate_limit_kind = ?", q.rateLimitKind)
      .add("category = ?", category)
      .add("model = ?", q.model)
      .add("service = ?", q.service)
      .add("provider = ?", q.provider)
      .add("status = ?", q.status)
      .add("occurred_at >= ?", q.since)
      .add("occurred_at < ?", q.until)
    if (q.cursor !== undefined) where.add("(occurred_at, id) < (?, ?)", ...decodeEventCursor(q.cursor))
    const sql = `SELECT ${EVENT_COLUMNS} FROM events${where.sql} ORDER BY occurred_at DESC, id DESC LIMIT ?`
    const params = [...where.params, limit + 1]
    const rows = this.statement(sql).all(...params) as EventRow[]
    let nextCursor: string | null = null
    if (rows.length > limit) {
      rows.length = limit
      const last = rows[limit - 1]!
      nextCursor = encodeEventCursor(last.occurred_at, last.id)
    }
    return { events: rows.map(rowToEvent), nextCursor }
  }

  private statement(sql: string): BetterSqlite3.Statement {
    let s = this.dynamic.get(sql)
    if (s === undefined) {
      s = this.db.prepare(sql)
      this.dynamic.set(sql, s)
    }
    return s
  }

  // -------------------------------------------------------------------------------------------
  // report

  /**
   * CONTRACT section 6 over [since, until), read from one snapshot. `alerts` and `tickets` are 0:
   * the caller fills them. Throws StoreQueryError("bad_window") unless since < until.
   */
  report(q: ReportQuery): Report {
    if (!Number.isFinite(q.since) || !Number.isFinite(q.until) || q.until <= q.since) {
      throw new StoreQueryError({ reason: "bad_window", message: "the report window needs since < until" })
    }
    return this.readTx(() => this.buildReport(q))
  }

  private buildReport(q: ReportQuery): Report {
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
    type EventAgg = {
      s: number
      fingerprint: string
      category: string
      rate_limit_kind: string | null
      status: number | null
      model: string | null
      service: string | null
      provider: string | null
      n: number
      f: number
      l: number
    }
    for (const [a, b] of plan.events) {
      for (const r of this.reportEvents.all(step, a, b) as EventAgg[]) {
        if (!keep(r.service, r.model)) continue
        addTimeline(r.s, r.category, r.n)
        const series = this.seriesLookup(undefined, seriesKey(r.fingerprint, r.category, r.rate_limit_kind, r.status, r.model, r.service, r.provider))
        if (series !== undefined) addSeries(series.id, r.n, r.f, r.l)
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
      const series = this.seriesLookup(id, undefined)
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
      const r = this.selectIncidentById.get(id) as IncidentRow | undefined
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
    const sources: ReportSource[] = this.checkpoints()
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

  // -------------------------------------------------------------------------------------------
  // incidents

  /** Fingerprints, most recently seen first. `active` = lastSeen within the last hour. */
  incidents(q: IncidentsQuery = {}): IncidentPage {
    const now = q.now ?? Date.now()
    const limit = checkLimit(q.limit ?? 100, MAX_PAGE)
    const where = new Where()
      .add("last_seen >= ?", q.state === "active" ? now - ACTIVE_MS : undefined)
      .add("last_seen < ?", q.state === "quiet" ? now - ACTIVE_MS : undefined)
      .add("last_seen >= ?", q.since)
    // keyset pages, as for events: (lastSeen, id) of the last incident of the previous page
    if (q.cursor !== undefined) {
      const [lastSeen, id] = decodeKeyset("incidents", q.cursor)
      if (!/^[0-9]{1,15}$/.test(id)) throw badCursor()
      where.add("(last_seen, id) < (?, ?)", lastSeen, Number(id))
    }
    const sql = `SELECT ${INCIDENT_COLUMNS} FROM incidents${where.sql} ORDER BY last_seen DESC, id DESC LIMIT ?`
    const params = [...where.params, limit + 1]
    const rows = this.statement(sql).all(...params) as IncidentRow[]
    let nextCursor: string | null = null
    if (rows.length > limit) {
      rows.length = limit
      const last = rows[limit - 1]!
      nextCursor = encodeCursor("incidents", [last.last_seen, String(last.id)])
    }
    return {
      incidents: rows.map((r): Incident => {
        const kind = r.rate_limit_kind as RateLimitKind | null
        return {
          fingerprint: r.fingerprint,
          state: r.last_seen >= now - ACTIVE_MS ? "active" : "quiet",
          category: r.category as Category,
          rateLimitKind: kind,
          kind,
          severity: r.severity as Severity,
          retryable: r.retryable === 1,
          status: r.status,
          code: r.code,
          model: r.model,
          service: r.service,
          message: r.message,
          action: r.action,
          count: r.count,
          firstSeen: iso(r.first_seen),
          lastSeen: iso(r.last_seen),
          sample: r.sample,
          sampleEventId: r.sample_event_id
        }
      }),
      nextCursor
    }
  }

  // -------------------------------------------------------------------------------------------
  // metrics and diagnosis

  /** Start-up values for the counters and gauges of CONTRACT section 9. */
  ingestTotals(): IngestTotals {
    return {
      sources: this.selectCounters.all() as IngestTotals["sources"][number][],
      failures: this.selectFailureTotals.all() as IngestTotals["failures"][number][],
      lag: this.checkpoints().map((c) => ({
        source: `file:${c.path}`,
        key: c.key,
        offset: c.offset,
        size: c.size,
        lagBytes: Math.max(0, c.size - c.offset)
      }))
    }
  }

  /**
   * Models with failures in `service` since `sinceMs`, most recent first. `service` null means
   * events that name no service (the "same service" as an event without one).
   */
  modelsSeen(service: string | null, sinceMs: number): Array<ModelSeen> {
    const rows = this.selectModelsSeen.all(service, sinceMs) as Array<{ model: string; failures: number; last: number }>
    return rows.map((r) => ({ model: r.model, failures: r.failures, lastSeen: iso(r.last) }))
  }

  /**
   * Models in which "the same failure" as `fingerprint` was last seen since `sinceMs`, most recent
   * first, the fingerprint's own model included. The fingerprint contains the model, so "the same
   * failure in another model" is an incident with equal category, kind, status, code and service
   * whose message is equal once model names and digits are masked.
   */
  fingerprintModels(fingerprint: string, sinceMs: number): string[] {
    const self = this.selectIncidentByFp.get(fingerprint) as IncidentRow | undefined
    if (self === undefined) return []
    const wanted = modelFreeMessage(self.message, self.model)
    const rows = this.selectSameFailure.all(
      self.category,
      self.rate_limit_kind,
      self.status,
      sqlCode(self.code),
      self.service,
      sinceMs
    ) as Array<{ model: string; message: string | null }>
    const models: string[] = []
    for (const r of rows) {
      if (!models.includes(r.model) && modelFreeMessage(r.message, r.model) === wanted) models.push(r.model)
    }
    return models
  }

  // -------------------------------------------------------------------------------------------
  // retention

  /**
   * Deletes events older than `retentionDays` (and minute buckets with them; hour and day buckets
   * after max(retentionDays, 400) days) in chunks of `chunk` rows, each its own short transaction.
   * Incidents, counters and checkpoints are kept. Returns the number of events deleted.
   */
  prune(now: number, retentionDays: number, chunk: number = PRUNE_CHUNK): number {
    if (!(retentionDays > 0) || !Number.isFinite(now)) return 0
    const cutoff = now - retentionDays * DAY
    const drain = (stmt: BetterSqlite3.Statement, before: number): number => {
      let total = 0
      for (;;) {
        const n = stmt.run(before, chunk).changes
        total += n
        if (n < chunk) return total
      }
    }
    const deleted = drain(this.pruneEvents, cutoff)
    const minuteCutoff = floorTo(cutoff, MINUTE)
    drain(this.pruneMinute, minuteCutoff)
    drain(this.pruneCategoryMinute, minuteCutoff)
    const hourCutoff = floorTo(now - Math.max(retentionDays, HOUR_BUCKET_MIN_RETENTION_DAYS) * DAY, HOUR)
    drain(this.pruneHour, hourCutoff)
    drain(this.pruneCategoryHour, hourCutoff)
    drain(this.pruneDay, floorTo(hourCutoff, DAY))
    this.calls.prune(now, retentionDays)
    return deleted
  }

  /**
   * What the database uses. `usedBytes` (pages in use: page_count - freelist_count, WAL
   * included as this connection sees it) is what `database.maxSize` bounds: SQLite reuses
   * freed pages, so a file whose used pages stay under the limit stops growing. `fileBytes`
   * (main file + WAL on disk) is for the log.
   */
  size(): DatabaseSize {
    const pageSize = this.db.pragma("page_size", { simple: true }) as number
    const pageCount = this.db.pragma("page_count", { simple: true }) as number
    const freePages = this.db.pragma("freelist_count", { simple: true }) as number
    const file = this.db.name
    const stat = (f: string): number => {
      try {
        return fs.statSync(f).size
      } catch {
        return 0
      }
    }
    const fileBytes = this.db.memory ? pageCount * pageSize : stat(file) + stat(`${file}-wal`)
    return { usedBytes: (pageCount - freePages) * pageSize, fileBytes }
  }

  /**
   * Deletes up to `chunk` of the oldest events (by occurred_at), in one short transaction of its
   * own. Buckets, incidents, series, counters, alerts and tickets are kept: the report over any
   * minute-aligned window stays whole. Returns how many events went and the newest time deleted.
   */
  pruneOldest(chunk: number = SIZE_PRUNE_CHUNK): { deleted: number; newestDeleted: number | null } {
    const times = this.pruneOldestEvents.all(Math.max(1, Math.floor(chunk))) as number[]
    let newest: number | null = null
    for (const t of times) if (newest === null || t > newest) newest = t
    return { deleted: times.length, newestDeleted: newest }
  }

  /** After a prune: gives freed pages back to the file system when the database was made with auto_vacuum = INCREMENTAL. */
  reclaim(): void {
    if ((this.db.pragma("auto_vacuum", { simple: true }) as number) === 2) this.db.pragma("incremental_vacuum")
  }

  /**
   * Enforces `database.maxSize` at once (the daemon uses `pruneToSizeEffect`, which yields between
   * chunks): when the used bytes exceed `maxBytes`, deletes the oldest events chunk by chunk until
   * they are under `lowWater * maxBytes` or no event is left.
   */
  pruneToSize(maxBytes: number, opts: SizePruneOptions = {}): SizePruneResult {
    const run = pruneToSizeSteps(this, maxBytes, opts)
    for (;;) {
      const step = run.next()
      if (step.done === true) return step.value
    }
  }
}

export interface DatabaseSize {
  readonly usedBytes: number
  readonly fileBytes: number
}

export interface SizePruneOptions {
  /** Share of maxBytes to prune down to (default 0.9). */
  readonly lowWater?: number
  /** Events per delete statement (default 1000). */
  readonly chunk?: number
}

export interface SizePruneResult {
  readonly deleted: number
  readonly before: DatabaseSize
  readonly after: DatabaseSize
  /** The newest occurred_at deleted (ms), when any event was. */
  readonly prunedUntil: number | null
}

/** The size prune as steps: each `next()` is one chunk (one short transaction). */
function* pruneToSizeSteps(store: EventStore, maxBytes: number, opts: SizePruneOptions): Generator<void, SizePruneResult> {
  const before = store.size()
  if (!(maxBytes > 0) || before.usedBytes <= maxBytes) return { deleted: 0, before, after: before, prunedUntil: null }
  const target = maxBytes * Math.min(1, Math.max(0, opts.lowWater ?? SIZE_LOW_WATER))
  const maxChunk = Math.max(1, Math.floor(opts.chunk ?? SIZE_PRUNE_CHUNK))
  let deleted = 0
  let prunedUntil: number | null = null
  // a first small chunk measures the bytes an event frees; the next ones aim at the low-water
  // mark (events are of very different sizes: a fixed chunk of large ones overshoots it)
  let chunk = Math.min(maxChunk, 100)
  for (;;) {
    const step = store.pruneOldest(chunk)
    deleted += step.deleted
    if (step.newestDeleted !== null && (prunedUntil === null || step.newestDeleted > prunedUntil)) prunedUntil = step.newestDeleted
    const now = store.size().usedBytes
    if (step.deleted === 0 || now <= target) break
    const perEvent = (before.usedBytes - now) / deleted
    chunk = perEvent > 0 ? Math.min(maxChunk, Math.max(1, Math.ceil(((now - target) / perEvent) * 1.05))) : maxChunk
    yield
  }
  store.reclaim()
  return { deleted, before, after: store.size(), prunedUntil }
}

/**
 * `pruneToSize` for the daemon: the same chunks, with a turn of the event loop between them so
 * HTTP requests and the tailer are served while a large prune runs.
 */
export const pruneToSizeEffect = (store: EventStore, maxBytes: number, opts: SizePruneOptions = {}): Effect.Effect<SizePruneResult> =>
  Effect.suspend(() => {
    const run = pruneToSizeSteps(store, maxBytes, opts)
    const loop: Effect.Effect<SizePruneResult> = Effect.suspend(() => {
      const step = run.next()
      return step.done === true ? Effect.succeed(step.value) : Effect.zipRight(Effect.sleep(Duration.millis(1)), loop)
    })
    return loop
  })

/** The event store over the shared database handle. */
export class EventStoreService extends Context.Tag("faultline/EventStore")<EventStoreService, EventStore>() {
  static readonly layer: Layer.Layer<EventStoreService, never, Database> = Layer.effect(
    EventStoreService,
    Effect.map(Database, ({ db }) => new EventStore(db))
  )
}
