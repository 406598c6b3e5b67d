/**
 * Reading events, incidents and the figures of metrics and diagnosis.
 *
 * An event is read as its thin row (migrations/007_thin_events.sql) completed from the cached
 * series, variant and source it names, its sample decoded against the series' reference.
 * `GET /v1/events` pages newest first by (occurredAt, id); a label filter (category, kind,
 * status, model, service, provider) is a set of series, usually a few: each is read through the
 * (series, occurred_at) index and the pages merged here (newestOf).
 */
import type BetterSqlite3 from "better-sqlite3"
import type { Category, FailureEvent, RateLimitKind, Severity } from "../classify/Event.js"
import type { SourceCheckpoint } from "../sources/Batch.js"
import type { Catalog } from "./catalog.js"
import { ACTIVE_MS, badCursor, checkLimit, decodeEventCursor, decodeKeyset, encodeEventCursor, iso, MAX_PAGE, sqlCode, Where } from "./common.js"
import { encodeCursor } from "./cursor.js"
import type { EventPage, Incident, IncidentPage, IncidentsQuery, IngestTotals, ListEventsQuery, ModelSeen } from "./report-shape.js"
import { decodeDelta } from "./sampleDelta.js"
import { storedRequestId } from "./write.js"

/** A filter matching more series than this is read from the time index, the series a residual filter. */
const MERGE_MAX = 256

interface EventRow {
  id: string
  occurred_at: number
  ingested_ms: number
  series: number
  variant: number
  source: number
  line: number | null
  request_id: string | number | null
  message: string | null
  sample: string
  delta: number
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

const EVENT_COLUMNS = "id, occurred_at, ingested_ms, series, variant, source, line, request_id, message, sample, delta"

const INCIDENT_COLUMNS =
  "id, fingerprint, category, rate_limit_kind, severity, retryable, status, code, model, service, message, action, " +
  "count, first_seen, last_seen, sample, sample_event_id"

/**
 * SQLite's order of TEXT (BINARY: UTF-8 bytes, i.e. code points). JS compares UTF-16 code
 * units, which differs only where a surrogate meets a code unit >= 0xE000.
 */
const textOrder = (a: string, b: string): number => {
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i)
    let y = b.charCodeAt(i)
    if (x === y) continue
    if (x >= 0xd800 && y >= 0xd800) {
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000
    }
    return x - y
  }
  return a.length - b.length
}

const newestFirst = (a: EventRow, b: EventRow): number => b.occurred_at - a.occurred_at || textOrder(b.id, a.id)

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

const rowToCheckpoint = (r: SourceRow): SourceCheckpoint => ({
  key: r.key,
  path: r.path,
  offset: r.byte_offset,
  line: r.line,
  size: r.size,
  headHash: r.head_hash,
  headLength: r.head_length
})

export class Queries {
  private readonly selectEvent: BetterSqlite3.Statement
  private readonly selectCheckpoint: BetterSqlite3.Statement
  private readonly selectCheckpoints: BetterSqlite3.Statement
  private readonly deleteCheckpoint: BetterSqlite3.Statement
  private readonly selectCounters: BetterSqlite3.Statement
  private readonly selectIncidentByFp: BetterSqlite3.Statement
  private readonly selectFailureTotals: BetterSqlite3.Statement
  private readonly selectModelsSeen: BetterSqlite3.Statement
  private readonly selectSameFailure: BetterSqlite3.Statement
  /** Statements whose SQL depends on which filters are given (GET /v1/events, incidents), prepared once each. */
  private readonly dynamic = new Map<string, BetterSqlite3.Statement>()
  private readonly pools = new Map<string, BetterSqlite3.Statement[]>()

  constructor(
    private readonly db: BetterSqlite3.Database,
    private readonly catalog: Catalog
  ) {
    this.selectEvent = db.prepare(`SELECT ${EVENT_COLUMNS} FROM event_rows WHERE id = ?`)
    const checkpointCols = "key, path, byte_offset, line, size, head_hash, head_length"
    this.selectCheckpoint = db.prepare(`SELECT ${checkpointCols} FROM sources WHERE key = ?`)
    this.selectCheckpoints = db.prepare(`SELECT ${checkpointCols} FROM sources ORDER BY path, key`)
    this.deleteCheckpoint = db.prepare("DELETE FROM sources WHERE key = ?")
    this.selectCounters = db.prepare(
      "SELECT source, lines_read AS linesRead, ignored, failures FROM ingest_counters ORDER BY source"
    )
    this.selectIncidentByFp = db.prepare(`SELECT ${INCIDENT_COLUMNS} FROM incidents WHERE fingerprint = ?`)
    this.selectFailureTotals = db.prepare(
      `SELECT category, rate_limit_kind AS rateLimitKind, status, model, service, sum(count) AS count
       FROM incidents GROUP BY category, rate_limit_kind, status, model, service
       ORDER BY category, rate_limit_kind, status, model, service`
    )
    this.selectModelsSeen = db.prepare(
      `SELECT s.model AS model, count(*) AS failures, max(e.occurred_at) AS last
       FROM series s JOIN event_rows e ON e.series = s.id
       WHERE s.service IS ? AND e.occurred_at >= ? AND s.model IS NOT NULL
       GROUP BY s.model ORDER BY last DESC, s.model`
    )
    this.selectSameFailure = db.prepare(
      `SELECT model, message, last_seen FROM incidents
       WHERE category = ? AND rate_limit_kind IS ? AND status IS ? AND code IS ? AND service IS ?
         AND last_seen >= ? AND model IS NOT NULL
       ORDER BY last_seen DESC`
    )
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
    return r === undefined ? null : this.toEvent(r)
  }

  /**
   * Newest first (occurredAt desc, id desc), keyset-paginated. `since` inclusive, `until`
   * exclusive. A `rateLimitKind` filter implies category `rate_limit`. Throws StoreQueryError
   * ("bad_cursor", "bad_limit").
   */
  listEvents(q: ListEventsQuery): EventPage {
    const limit = checkLimit(q.limit, MAX_PAGE)
    const labels = new Where()
      .add("rate_limit_kind = ?", q.rateLimitKind)
      .add("category = ?", q.category ?? (q.rateLimitKind !== undefined ? "rate_limit" : undefined))
      .add("model = ?", q.model)
      .add("service = ?", q.service)
      .add("provider = ?", q.provider)
      .add("status = ?", q.status)
    const cursor = q.cursor === undefined ? undefined : decodeEventCursor(q.cursor)
    const time = new Where().add("occurred_at >= ?", q.since).add("occurred_at < ?", q.until)
    // (occurred_at, id) < cursor, spelled so that the occurred_at bound is an index range
    if (cursor !== undefined) time.add("occurred_at <= ? AND (occurred_at < ? OR id < ?)", cursor[0], cursor[0], cursor[1])
    const order = " ORDER BY occurred_at DESC, id DESC LIMIT ?"
    let rows: EventRow[]
    if (labels.params.length === 0) {
      rows = this.statement(`SELECT ${EVENT_COLUMNS} FROM event_rows${time.sql}${order}`).all(...time.params, limit + 1) as EventRow[]
    } else {
      const series = this.statement(`SELECT id FROM series${labels.sql}`).pluck().all(...labels.params) as number[]
      if (series.length === 0) return { events: [], nextCursor: null }
      if (series.length <= MERGE_MAX) {
        rows = this.newestOf(series, q.since, q.until, cursor, limit + 1)
      } else {
        // many series (a wide filter): the time index, the series set as a residual filter
        const sql = `SELECT ${EVENT_COLUMNS} FROM event_rows WHERE +series IN (SELECT value FROM json_each(?))${time.and}${order}`
        rows = this.statement(sql).all(JSON.stringify(series), ...time.params, limit + 1) as EventRow[]
      }
    }
    let nextCursor: string | null = null
    if (rows.length > limit) {
      rows.length = limit
      const last = rows[limit - 1]!
      nextCursor = encodeEventCursor(last.occurred_at, last.id)
    }
    return { events: rows.map((r) => this.toEvent(r)), nextCursor }
  }

  /**
   * The newest `n` rows of some series within [since, until) and before the cursor, newest first.
   * Each series is a range of the (series, occurred_at) index: the positions of its newest rows
   * are read from the index alone, merged here newest first, and only the page's rows are read whole. The
   * index does not hold the id that orders rows of one millisecond: the rows of the cursor's
   * millisecond and of the page's last one are read whole, all of them.
   */
  private newestOf(series: ReadonlyArray<number>, since: number | undefined, until: number | undefined, cursor: readonly [number, string] | undefined, n: number): EventRow[] {
    const set = JSON.stringify(series)
    const inSet = "series IN (SELECT value FROM json_each(?))"
    const page: EventRow[] = []
    let upper = until
    if (cursor !== undefined) {
      const [t, id] = cursor
      if ((since === undefined || t >= since) && (until === undefined || t < until)) {
        const sql = `SELECT ${EVENT_COLUMNS} FROM event_rows WHERE ${inSet} AND occurred_at = ? AND id < ? ORDER BY id DESC LIMIT ?`
        for (const r of this.statement(sql).all(set, t, id, n) as EventRow[]) page.push(r)
      }
      upper = upper === undefined ? t : Math.min(upper, t)
      if (page.length >= n) return page
    }
    const need = n - page.length
    const time = new Where().add("occurred_at >= ?", since).add("occurred_at < ?", upper)
    // a lazy k-way merge: one iterator per series (a statement each: one iterates at a time), the
    // newest head taken until the page is full, so about need + k index entries are read
    const pool = this.pool(`SELECT occurred_at AS t, seq FROM event_rows WHERE series = ?${time.and} ORDER BY occurred_at DESC LIMIT ?`, series.length)
    const its = series.map((s, i) => pool[i]!.iterate(s, ...time.params, need) as IterableIterator<{ t: number; seq: number }>)
    let chosen: Array<{ t: number; seq: number }> = []
    try {
      const heads = its.map((it) => it.next().value as { t: number; seq: number } | undefined)
      while (chosen.length < need) {
        let best = -1
        for (let i = 0; i < heads.length; i++) if (heads[i] !== undefined && (best < 0 || heads[i]!.t > heads[best]!.t)) best = i
        if (best < 0) break
        chosen.push(heads[best]!)
        heads[best] = its[best]!.next().value as { t: number; seq: number } | undefined
      }
    } finally {
      for (const it of its) it.return?.()
    }
    const rest: EventRow[] = []
    if (chosen.length === need) {
      // the page ends inside millisecond `last`: every row of it competes by id
      const last = chosen[need - 1]!.t
      chosen = chosen.filter((k) => k.t > last)
      const sql = `SELECT ${EVENT_COLUMNS} FROM event_rows WHERE ${inSet} AND occurred_at = ?`
      for (const r of this.statement(sql).all(set, last) as EventRow[]) rest.push(r)
    }
    const bySeq = this.statement(`SELECT ${EVENT_COLUMNS} FROM event_rows WHERE seq IN (SELECT value FROM json_each(?))`)
    for (const r of bySeq.all(JSON.stringify(chosen.map((k) => k.seq))) as EventRow[]) rest.push(r)
    rest.sort(newestFirst)
    for (const r of rest.slice(0, need)) page.push(r)
    return page
  }

  /** The event of a thin row: its series' labels, its variant's fields, its own sample. */
  private toEvent(r: EventRow): FailureEvent {
    let series = this.catalog.series(r.series)
    // a reference set by another process after this one cached the series
    if (series !== undefined && r.delta === 1 && series.sampleRef === null) series = this.catalog.reloadSeries(r.series)
    const v = this.catalog.variant(r.variant)
    const source = this.catalog.sourceName(r.source)
    if (series === undefined || v === undefined || source === undefined || (r.delta === 1 && series.sampleRef === null)) {
      throw new Error(`event ${r.id}: its series, variant or source is missing from the database`)
    }
    return {
      id: r.id,
      occurredAt: iso(r.occurred_at),
      ingestedAt: iso(r.occurred_at + r.ingested_ms),
      source,
      line: r.line,
      service: series.service,
      status: series.status,
      code: v.code,
      message: r.message ?? v.message,
      model: series.model,
      requestId: typeof r.request_id === "number" ? storedRequestId(r.sample, r.request_id) : r.request_id,
      endpoint: v.endpoint,
      stream: v.stream,
      category: series.category as Category,
      rateLimitKind: series.rateLimitKind as RateLimitKind | null,
      severity: v.severity as Severity,
      retryable: v.retryable,
      action: v.action,
      fingerprint: series.fingerprint,
      bodyNotJson: v.bodyNotJson,
      provider: series.provider,
      sample: r.delta === 1 ? decodeDelta(r.sample, series.sampleRef!) : r.sample
    }
  }

  /** `k` statements of one SQL, for queries that must run side by side (newestOf). */
  private pool(sql: string, k: number): ReadonlyArray<BetterSqlite3.Statement> {
    let p = this.pools.get(sql)
    if (p === undefined) this.pools.set(sql, (p = []))
    while (p.length < k) p.push(this.db.prepare(sql))
    return p
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

}
