/**
 * The write path: `commit` stores the events of one or more batches, their incidents, the report
 * buckets, the ingest counters and the read checkpoints in ONE transaction (the exactly-once
 * mechanism: all of it or nothing).
 *
 * Hot path: one prepared INSERT of a thin row per event (times, id, series, variant, source
 * position, request id, message when it is not its variant's, sample as a delta against the
 * series' first sample); everything else
 * (incidents, buckets, counters) is grouped in memory first and written once per key per commit.
 */
import type BetterSqlite3 from "better-sqlite3"
import type { FailureEvent } from "../classify/Event.js"
import type { CallCount, CommitResult, IngestBatch } from "../sources/Batch.js"
import type { CallCounts } from "./CallCounts.js"
import { type Catalog, type Series, seriesKeyOf } from "./catalog.js"
import { DAY, floorTo, HOUR, MINUTE, sqlCode, toMs } from "./common.js"
import { decodeDelta, encodeDelta } from "./sampleDelta.js"

interface TopAgg {
  count: number
  first: number
  last: number
}

/** What one commit adds to one series. */
interface SeriesAgg {
  readonly series: Series
  count: number
  firstMs: number
  lastMs: number
  latest: FailureEvent
  readonly minutes: Map<number, TopAgg>
  readonly hours: Map<number, TopAgg>
  readonly days: Map<number, TopAgg>
}

/** What one commit has written so far: its result, and the aggregates written at its end. */
interface Written {
  readonly inserted: FailureEvent[]
  duplicates: number
  /** series id -> what this commit adds to it */
  readonly aggs: Map<number, SeriesAgg>
  /** `<minute>|<category>` -> events */
  readonly categoryMinutes: Map<string, number>
  /** source -> [lines read, ignored, failures] */
  readonly counters: Map<string, [number, number, number]>
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

/** Add a stored event to its series' aggregates and the category timeline. */
function aggregate(w: Written, e: FailureEvent, ms: number, series: Series): void {
  let a = w.aggs.get(series.id)
  if (a === undefined) {
    a = { series, count: 0, firstMs: ms, lastMs: ms, latest: e, minutes: new Map(), hours: new Map(), days: new Map() }
    w.aggs.set(series.id, a)
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

/**
 * The sample as stored: [text, 1] a delta against the series' reference, [sample, 0] as is when
 * there is no reference or the delta is not shorter. The request id is kept whole in the delta
 * (a literal), so that the row can point at it. The delta is checked by decoding it: a sample
 * must come back byte for byte.
 */
const storedSample = (sample: string, ref: string | null, requestId: string | null): [string, number] => {
  if (ref === null || typeof sample !== "string") return [sample, 0]
  const at = requestId === null || requestId === "" ? -1 : sample.indexOf(requestId)
  const d = at < 0 ? encodeDelta(sample, ref) : encodeDelta(sample, ref, at, at + requestId!.length)
  return d !== null && decodeDelta(d, ref) === sample ? [d, 1] : [sample, 0]
}

/** A request id found in the stored sample is kept as where it is: length * 8192 + offset. */
const REQUEST_ID_AT = 8192
const SURROGATE = /[\ud800-\udfff]/

/**
 * What event_rows.request_id holds: where the request id is in the stored sample text, or the
 * id itself. Only where an offset in UTF-16 code units is also one in characters (no surrogate
 * pair in the text), so that SQL's substr (the `events` view) reads the same id.
 */
const requestIdIn = (stored: string, requestId: string): string | bigint => {
  const at = requestId === "" || typeof stored !== "string" ? -1 : stored.indexOf(requestId)
  if (at < 0 || at >= REQUEST_ID_AT || SURROGATE.test(stored)) return requestId
  // a BigInt: better-sqlite3 binds a JS number as REAL (8 bytes)
  return BigInt(requestId.length * REQUEST_ID_AT + at)
}

/** The request id a row's INTEGER request_id points at in its stored sample. */
export const storedRequestId = (stored: string, at: number): string => {
  const offset = at % REQUEST_ID_AT
  return stored.slice(offset, offset + Math.floor(at / REQUEST_ID_AT))
}

export class Writer {
  private readonly insertEvent: BetterSqlite3.Statement
  private readonly upsertIncident: BetterSqlite3.Statement
  private readonly upsertMinute: BetterSqlite3.Statement
  private readonly upsertHour: BetterSqlite3.Statement
  private readonly upsertDay: BetterSqlite3.Statement
  private readonly upsertCategoryMinute: BetterSqlite3.Statement
  private readonly upsertCategoryHour: BetterSqlite3.Statement
  private readonly upsertCounter: BetterSqlite3.Statement
  private readonly upsertCheckpoint: BetterSqlite3.Statement
  private readonly commitTx: (batches: ReadonlyArray<IngestBatch>) => CommitResult

  constructor(
    db: BetterSqlite3.Database,
    private readonly catalog: Catalog,
    private readonly calls: CallCounts
  ) {
    this.insertEvent = db.prepare(
      `INSERT INTO event_rows (id, occurred_at, ingested_ms, series, variant, source, line, request_id, message, sample, delta)
       VALUES (?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT (id) DO NOTHING`
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
         ${["severity", "retryable", "code", "message", "action", "sample", "sample_event_id"].map(latest).join(",\n         ")}`
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
    const categoryUpsert = (table: string) =>
      db.prepare(
        `INSERT INTO ${table} (t, category, count) VALUES (?, ?, ?)
         ON CONFLICT (t, category) DO UPDATE SET count = count + excluded.count`
      )
    this.upsertCategoryMinute = categoryUpsert("timeline_minute")
    this.upsertCategoryHour = categoryUpsert("timeline_hour")
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
    this.commitTx = db.transaction((batches: ReadonlyArray<IngestBatch>) => this.write(batches)).immediate as (
      batches: ReadonlyArray<IngestBatch>
    ) => CommitResult
  }

  /**
   * Stores the batches in ONE transaction: events (a duplicate id is counted, not stored),
   * incidents, buckets, ingest counters and checkpoints. Either all of it or nothing.
   */
  commit(batches: ReadonlyArray<IngestBatch>): CommitResult {
    if (batches.length === 0) return { inserted: [], duplicates: 0 }
    let result: CommitResult
    try {
      result = this.commitTx(batches)
    } catch (e) {
      this.catalog.discard()
      this.calls.forgetKeys()
      throw e
    }
    this.catalog.settle()
    return result
  }

  /**
   * The transaction's body, in three steps kept as separate functions: one big function took
   * V8 ~40 ms to optimize (twice as long under load), and was optimized again after each deopt.
   */
  private write(batches: ReadonlyArray<IngestBatch>): CommitResult {
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
    this.upsertIncidents(w.aggs)
    this.upsertAggregates(w, now)
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
    const catalog = this.catalog
    let failures = 0
    let sourceName: string | undefined
    let sourceId = 0
    // a batch's events were read at one instant: its text read once
    let ingestedAt: string | undefined
    let ingestedMs = now
    for (const e of events) {
      if (e.ingestedAt !== ingestedAt) {
        ingestedAt = e.ingestedAt
        ingestedMs = toMs(ingestedAt, now)
      }
      const ms = toMs(e.occurredAt, ingestedMs)
      const series = catalog.seriesOf(seriesKeyOf(e), e, ms)
      if (e.source !== sourceName) {
        sourceName = e.source
        sourceId = catalog.sourceOf(e.source)
      }
      const variant = catalog.variantOf(series, e)
      const [sample, delta] = storedSample(e.sample, series.sampleRef, e.requestId)
      const message = e.message === variant.message ? null : e.message
      const requestId = e.requestId === null ? null : requestIdIn(sample, e.requestId)
      const changes = insert.run(e.id, ms, ingestedMs - ms, series.id, variant.id, sourceId, e.line, requestId, message, sample, delta).changes
      if (changes === 0) {
        w.duplicates++
        continue
      }
      failures++
      w.inserted.push(e)
      aggregate(w, e, ms, series)
    }
    return failures
  }

  /** One upsert per fingerprint (normally one series per fingerprint). */
  private upsertIncidents(aggs: ReadonlyMap<number, SeriesAgg>): void {
    const fps = new Map<string, { count: number; first: number; last: number; latest: FailureEvent }>()
    for (const a of aggs.values()) {
      const f = fps.get(a.series.fingerprint)
      if (f === undefined) fps.set(a.series.fingerprint, { count: a.count, first: a.firstMs, last: a.lastMs, latest: a.latest })
      else {
        f.count += a.count
        if (a.firstMs < f.first) f.first = a.firstMs
        if (a.lastMs >= f.last) {
          f.last = a.lastMs
          f.latest = a.latest
        }
      }
    }
    for (const [fingerprint, f] of fps) {
      const e = f.latest
      this.upsertIncident.run(
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
      )
    }
  }

  /** Series buckets (minute, hour, day), the per-category timelines and the ingest counters. */
  private upsertAggregates(w: Written, now: number): void {
    for (const [id, a] of w.aggs) {
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
}
