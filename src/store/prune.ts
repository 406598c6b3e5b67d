/**
 * Retention and `database.maxSize`: events go (oldest first), the aggregates the report and the
 * incidents read stay. Series, variants and source labels are never pruned (few rows).
 */
import { CallCounts } from "./CallCounts.js"
import type BetterSqlite3 from "better-sqlite3"
import { Duration, Effect } from "effect"
import * as fs from "node:fs"
import { DAY, floorTo, HOUR, MINUTE } from "./common.js"

/** Hour buckets outlive events: a year-over-year report stays possible. */
const HOUR_BUCKET_MIN_RETENTION_DAYS = 400
const PRUNE_CHUNK = 5_000
/** Events deleted per statement when pruning for size: a few ms each, so the daemon keeps answering between them. */
const SIZE_PRUNE_CHUNK = 1_000
/** Size pruning stops under this share of `database.maxSize`. */
const SIZE_LOW_WATER = 0.9

export class Pruner {
  private readonly pruneEvents: BetterSqlite3.Statement
  private readonly pruneOldestEvents: BetterSqlite3.Statement
  private readonly pruneMinute: BetterSqlite3.Statement
  private readonly pruneHour: BetterSqlite3.Statement
  private readonly pruneDay: BetterSqlite3.Statement
  private readonly pruneCategoryMinute: BetterSqlite3.Statement
  private readonly pruneCategoryHour: BetterSqlite3.Statement

  private readonly calls: CallCounts

  constructor(private readonly db: BetterSqlite3.Database) {
    this.calls = new CallCounts(db)
    this.pruneEvents = db.prepare(
      "DELETE FROM event_rows WHERE seq IN (SELECT seq FROM event_rows WHERE occurred_at < ? ORDER BY occurred_at LIMIT ?)"
    )
    // the oldest first (event_rows_time); rowids of events arrive roughly in time order, so whole pages empty
    this.pruneOldestEvents = db.prepare(
      "DELETE FROM event_rows WHERE seq IN (SELECT seq FROM event_rows ORDER BY occurred_at LIMIT ?) RETURNING occurred_at"
    ).pluck()
    const pruneBuckets = (table: string) =>
      db.prepare(`DELETE FROM ${table} WHERE (t, series) IN (SELECT t, series FROM ${table} WHERE t < ? LIMIT ?)`)
    this.pruneMinute = pruneBuckets("buckets_minute")
    this.pruneHour = pruneBuckets("buckets_hour")
    this.pruneDay = pruneBuckets("buckets_day")
    const pruneCategory = (table: string) =>
      db.prepare(`DELETE FROM ${table} WHERE (t, category) IN (SELECT t, category FROM ${table} WHERE t < ? LIMIT ?)`)
    this.pruneCategoryMinute = pruneCategory("timeline_minute")
    this.pruneCategoryHour = pruneCategory("timeline_hour")
  }

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

/** What the size prune needs of a store (EventStore and Pruner both are one). */
export interface SizePrunable {
  size(): DatabaseSize
  pruneOldest(chunk?: number): { deleted: number; newestDeleted: number | null }
  reclaim(): void
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
function* pruneToSizeSteps(store: SizePrunable, maxBytes: number, opts: SizePruneOptions): Generator<void, SizePruneResult> {
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
export const pruneToSizeEffect = (store: SizePrunable, maxBytes: number, opts: SizePruneOptions = {}): Effect.Effect<SizePruneResult> =>
  Effect.suspend(() => {
    const run = pruneToSizeSteps(store, maxBytes, opts)
    const loop: Effect.Effect<SizePruneResult> = Effect.suspend(() => {
      const step = run.next()
      return step.done === true ? Effect.succeed(step.value) : Effect.zipRight(Effect.sleep(Duration.millis(1)), loop)
    })
    return loop
  })
