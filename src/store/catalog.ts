/**
 * What events share, stored once and cached: series (a fingerprint with its labels, and the
 * reference sample its events' samples are stored against), variants (the per-event fields the
 * series key does not cover: severity, retryable, action, code, endpoint, stream, bodyNotJson,
 * whether there is a message, and the first message) and source labels. Schema: migrations/001_core.sql, 007_thin_events.sql.
 *
 * Rows created inside a commit are cached only once it has committed (`settle`): a rolled-back
 * commit leaves no id in the cache that the database does not have. Rows written by another
 * process (e.g. `faultline replay` beside the daemon) are found in the database on a cache miss.
 */
import type BetterSqlite3 from "better-sqlite3"
import type { FailureEvent } from "../classify/Event.js"
import { sqlCode } from "./common.js"

/** Entries per cache; a cache past it is dropped whole (fingerprints gone wild). */
const CACHE_MAX = 50_000

/** One fingerprint with one label set (table `series`): the unit of the report buckets. */
export interface Series {
  readonly id: number
  readonly key: string
  readonly incident: number
  readonly fingerprint: string
  readonly category: string
  readonly rateLimitKind: string | null
  readonly status: number | null
  readonly model: string | null
  readonly service: string | null
  readonly provider: string | null
  /** The series' first sample (null for series moved from the previous layout until their next event). */
  readonly sampleRef: string | null
}

/**
 * The fields of an event that its series does not fix (table `event_variants`). `message` is the
 * variant's first message: an event with another one keeps its own (event_rows.message).
 */
export interface Variant {
  readonly id: number
  readonly series: number
  readonly severity: string
  readonly retryable: boolean
  readonly action: string
  readonly code: number | string | null
  readonly message: string | null
  readonly endpoint: string | null
  readonly stream: boolean | null
  readonly bodyNotJson: boolean
}

interface SeriesRow {
  id: number
  key: string
  incident: number
  fingerprint: string
  category: string
  rate_limit_kind: string | null
  status: number | null
  model: string | null
  service: string | null
  provider: string | null
  sample_ref: string | null
}

interface VariantRow {
  id: number
  series: number
  severity: string
  retryable: number
  action: string
  code: number | string | null
  message: string | null
  endpoint: string | null
  stream: number | null
  body_not_json: number
}

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

/** The series keys of recent fingerprints, with what else makes the key (building one is a JSON.stringify). */
type SeenSeries = Pick<FailureEvent, "category" | "rateLimitKind" | "status" | "model" | "service" | "provider"> & { readonly key: string }
const recentSeries = new Map<string, SeenSeries>()

export function seriesKeyOf(e: FailureEvent): string {
  const s = recentSeries.get(e.fingerprint)
  if (s !== undefined && s.category === e.category && s.rateLimitKind === e.rateLimitKind && s.status === e.status && s.model === e.model && s.service === e.service && s.provider === e.provider) {
    return s.key
  }
  const key = seriesKey(e.fingerprint, e.category, e.rateLimitKind, e.status, e.model, e.service, e.provider)
  if (recentSeries.size >= 4096) recentSeries.clear()
  recentSeries.set(e.fingerprint, { category: e.category, rateLimitKind: e.rateLimitKind, status: e.status, model: e.model, service: e.service, provider: e.provider, key })
  return key
}

const sameVariant = (v: Variant, e: FailureEvent): boolean =>
  v.severity === e.severity &&
  v.retryable === e.retryable &&
  v.action === e.action &&
  v.code === e.code &&
  (v.message === null) === (e.message === null) &&
  v.endpoint === e.endpoint &&
  v.stream === e.stream &&
  v.bodyNotJson === e.bodyNotJson

const variantKey = (series: number, e: FailureEvent): string =>
  JSON.stringify([series, e.severity, e.retryable ? 1 : 0, e.action, e.code, e.message === null ? 1 : 0, e.endpoint, e.stream === null ? null : e.stream ? 1 : 0, e.bodyNotJson ? 1 : 0])

const rowToSeries = (r: SeriesRow): Series => ({
  id: r.id,
  key: r.key,
  incident: r.incident,
  fingerprint: r.fingerprint,
  category: r.category,
  rateLimitKind: r.rate_limit_kind,
  status: r.status,
  model: r.model,
  service: r.service,
  provider: r.provider,
  sampleRef: r.sample_ref
})

const rowToVariant = (r: VariantRow): Variant => ({
  id: r.id,
  series: r.series,
  severity: r.severity,
  retryable: r.retryable === 1,
  action: r.action,
  code: r.code,
  message: r.message,
  endpoint: r.endpoint,
  stream: r.stream === null ? null : r.stream === 1,
  bodyNotJson: r.body_not_json === 1
})

/** A map that is dropped whole past CACHE_MAX entries. */
const put = <K, V>(m: Map<K, V>, k: K, v: V): void => {
  if (m.size >= CACHE_MAX) m.clear()
  m.set(k, v)
}

/** What an open commit has created or changed (cached by `settle` once it committed). */
interface Pending {
  readonly series: Map<string, Series>
  readonly variants: Map<string, Variant>
  readonly sources: Map<string, number>
}

export class Catalog {
  private readonly seriesByKey = new Map<string, Series>()
  private readonly seriesById = new Map<number, Series>()
  private readonly variantsByKey = new Map<string, Variant>()
  private readonly variantsById = new Map<number, Variant>()
  private readonly sourceIds = new Map<string, number>()
  private readonly sourceNames = new Map<number, string>()
  /** The variant last used per series: most events of a series share one. */
  private readonly recentVariant = new Map<number, Variant>()
  private pending: Pending = { series: new Map(), variants: new Map(), sources: new Map() }

  private readonly insertIncidentStub: BetterSqlite3.Statement
  private readonly selectIncidentId: BetterSqlite3.Statement
  private readonly insertSeries: BetterSqlite3.Statement
  private readonly selectSeriesByKey: BetterSqlite3.Statement
  private readonly selectSeriesById: BetterSqlite3.Statement
  private readonly setSampleRef: BetterSqlite3.Statement
  private readonly insertVariant: BetterSqlite3.Statement
  private readonly selectVariantByKey: BetterSqlite3.Statement
  private readonly selectVariantById: BetterSqlite3.Statement
  private readonly insertSource: BetterSqlite3.Statement
  private readonly selectSourceId: BetterSqlite3.Statement
  private readonly selectSourceName: BetterSqlite3.Statement

  constructor(db: BetterSqlite3.Database) {
    // a new fingerprint's incident, so that its series can name it; the commit's incident upsert
    // then adds the counts (count 0 here, and last_seen = this event's time, so the upsert's
    // "latest occurrence" fields replace these)
    this.insertIncidentStub = db.prepare(
      `INSERT INTO incidents (fingerprint, category, rate_limit_kind, severity, retryable, status, code, model, service,
         message, action, count, first_seen, last_seen, sample, sample_event_id)
       VALUES (?,?,?,?,?,?,?,?,?,?,?,0,?,?,?,?) ON CONFLICT (fingerprint) DO NOTHING`
    )
    this.selectIncidentId = db.prepare("SELECT id FROM incidents WHERE fingerprint = ?").pluck()
    this.insertSeries = db.prepare(
      `INSERT INTO series (key, incident, category, rate_limit_kind, status, model, service, provider, sample_ref)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (key) DO NOTHING`
    )
    const seriesSql = `SELECT s.id, s.key, s.incident, i.fingerprint, s.category, s.rate_limit_kind, s.status, s.model, s.service,
      s.provider, s.sample_ref FROM series s JOIN incidents i ON i.id = s.incident`
    this.selectSeriesByKey = db.prepare(`${seriesSql} WHERE s.key = ?`)
    this.selectSeriesById = db.prepare(`${seriesSql} WHERE s.id = ?`)
    this.setSampleRef = db.prepare("UPDATE series SET sample_ref = ? WHERE id = ? AND sample_ref IS NULL")
    this.insertVariant = db.prepare(
      `INSERT INTO event_variants (key, series, severity, retryable, action, code, message, endpoint, stream, body_not_json)
       VALUES (?,?,?,?,?,?,?,?,?,?) ON CONFLICT (key) DO NOTHING`
    )
    const variantSql = "SELECT id, series, severity, retryable, action, code, message, endpoint, stream, body_not_json FROM event_variants"
    this.selectVariantByKey = db.prepare(`${variantSql} WHERE key = ?`)
    this.selectVariantById = db.prepare(`${variantSql} WHERE id = ?`)
    this.insertSource = db.prepare("INSERT INTO event_sources (name) VALUES (?) ON CONFLICT (name) DO NOTHING")
    this.selectSourceId = db.prepare("SELECT id FROM event_sources WHERE name = ?").pluck()
    this.selectSourceName = db.prepare("SELECT name FROM event_sources WHERE id = ?").pluck()
  }

  // -------------------------------------------------------------------------------------------
  // inside a commit

  /** The series of `e` (key `key`), created with its incident when new; its reference sample set when it has none. */
  seriesOf(key: string, e: FailureEvent, ms: number): Series {
    let s = this.pending.series.get(key) ?? this.seriesByKey.get(key) ?? this.loadSeries(undefined, key)
    if (s === undefined) {
      this.insertIncidentStub.run(e.fingerprint, e.category, e.rateLimitKind, e.severity, e.retryable ? 1 : 0, e.status, sqlCode(e.code), e.model, e.service, e.message, e.action, ms, ms, e.sample, e.id)
      const incident = this.selectIncidentId.get(e.fingerprint) as number
      this.insertSeries.run(key, incident, e.category, e.rateLimitKind, e.status, e.model, e.service, e.provider, e.sample)
      s = rowToSeries(this.selectSeriesByKey.get(key) as SeriesRow)
      this.pending.series.set(key, s)
    } else if (s.sampleRef === null && typeof e.sample === "string") {
      // a series moved from the previous layout: its first new sample becomes the reference
      // (unless another process set one meanwhile: then that one is read back)
      this.setSampleRef.run(e.sample, s.id)
      s = rowToSeries(this.selectSeriesById.get(s.id) as SeriesRow)
      this.pending.series.set(key, s)
    }
    return s
  }

  /** The variant of `e` in `series`, created when new. */
  variantOf(series: Series, e: FailureEvent): Variant {
    const recent = this.recentVariant.get(series.id)
    if (recent !== undefined && sameVariant(recent, e)) return recent
    const key = variantKey(series.id, e)
    let v = this.pending.variants.get(key) ?? this.variantsByKey.get(key)
    if (v === undefined) {
      let row = this.selectVariantByKey.get(key) as VariantRow | undefined
      if (row === undefined) {
        const stream = e.stream === null ? null : e.stream ? 1 : 0
        this.insertVariant.run(key, series.id, e.severity, e.retryable ? 1 : 0, e.action, sqlCode(e.code), e.message, e.endpoint, stream, e.bodyNotJson ? 1 : 0)
        row = this.selectVariantByKey.get(key) as VariantRow
        v = rowToVariant(row)
        this.pending.variants.set(key, v)
      } else {
        v = rowToVariant(row)
        put(this.variantsByKey, key, v)
      }
    }
    // only committed variants are remembered as recent (a pending one may be rolled back)
    if (!this.pending.variants.has(key)) put(this.recentVariant, series.id, v)
    return v
  }

  /** The id of a source label, created when new. */
  sourceOf(name: string): number {
    const known = this.pending.sources.get(name) ?? this.sourceIds.get(name)
    if (known !== undefined) return known
    let id = this.selectSourceId.get(name) as number | undefined
    if (id === undefined) {
      this.insertSource.run(name)
      id = this.selectSourceId.get(name) as number
      this.pending.sources.set(name, id)
    } else {
      put(this.sourceIds, name, id)
    }
    return id
  }

  /** The commit went through: cache what it created. */
  settle(): void {
    for (const s of this.pending.series.values()) this.cacheSeries(s)
    for (const [key, v] of this.pending.variants) {
      put(this.variantsByKey, key, v)
      put(this.variantsById, v.id, v)
    }
    for (const [name, id] of this.pending.sources) {
      put(this.sourceIds, name, id)
      put(this.sourceNames, id, name)
    }
    this.discard()
  }

  /** The commit rolled back (or settled): forget what it created. */
  discard(): void {
    this.pending = { series: new Map(), variants: new Map(), sources: new Map() }
  }

  // -------------------------------------------------------------------------------------------
  // reading (committed rows)

  /** A committed series by id, from the cache or the database. */
  series(id: number): Series | undefined {
    return this.seriesById.get(id) ?? this.loadSeries(id, undefined)
  }

  /** The series with the reference sample another process may have set since it was cached. */
  reloadSeries(id: number): Series | undefined {
    return this.loadSeries(id, undefined)
  }

  variant(id: number): Variant | undefined {
    const cached = this.variantsById.get(id)
    if (cached !== undefined) return cached
    const row = this.selectVariantById.get(id) as VariantRow | undefined
    if (row === undefined) return undefined
    const v = rowToVariant(row)
    put(this.variantsById, id, v)
    return v
  }

  sourceName(id: number): string | undefined {
    const cached = this.sourceNames.get(id)
    if (cached !== undefined) return cached
    const name = this.selectSourceName.get(id) as string | undefined
    if (name !== undefined) put(this.sourceNames, id, name)
    return name
  }

  private loadSeries(id: number | undefined, key: string | undefined): Series | undefined {
    const row = (id !== undefined ? this.selectSeriesById.get(id) : this.selectSeriesByKey.get(key)) as SeriesRow | undefined
    if (row === undefined) return undefined
    const series = rowToSeries(row)
    this.cacheSeries(series)
    return series
  }

  private cacheSeries(series: Series): void {
    if (this.seriesById.size >= CACHE_MAX) {
      this.seriesById.clear()
      this.seriesByKey.clear()
    }
    this.seriesByKey.set(series.key, series)
    this.seriesById.set(series.id, series)
  }
}
