/**
 * The event store: events, incidents (per fingerprint), read checkpoints, ingest counters and the
 * pre-aggregated buckets behind the report (schema: migrations/001_core.sql, 007_thin_events.sql).
 *
 * One object over one database handle, its rooms in their own files:
 * - write.ts: `commit`, the exactly-once transaction (events, aggregates, counters, checkpoints);
 * - catalog.ts: what events share (series, variants, source labels), stored once and cached;
 * - report.ts: the report from the buckets;
 * - queries.ts: events (`GET /v1/events`), incidents, metrics and diagnosis figures, checkpoints;
 * - prune.ts: retention and `database.maxSize`.
 */
import { CallCounts } from "./CallCounts.js"
import type BetterSqlite3 from "better-sqlite3"
import { Context, Effect, Layer } from "effect"
import type { FailureEvent } from "../classify/Event.js"
import type { CommitResult, IngestBatch, SourceCheckpoint } from "../sources/Batch.js"
import { Catalog } from "./catalog.js"
import { Database } from "./Database.js"
import { type DatabaseSize, Pruner, type SizePruneOptions, type SizePruneResult } from "./prune.js"
import { Queries } from "./queries.js"
import { Reporter } from "./report.js"
import type { EventPage, IncidentPage, IncidentsQuery, IngestTotals, ListEventsQuery, ModelSeen, Report, ReportQuery } from "./report-shape.js"
import { Writer } from "./write.js"

export * from "./report-shape.js"
export { decodeEventCursor, encodeEventCursor } from "./common.js"
export { type DatabaseSize, pruneToSizeEffect, type SizePruneOptions, type SizePruneResult } from "./prune.js"
export { timelineStep } from "./report.js"

export class EventStore {
  private readonly writer: Writer
  private readonly reporter: Reporter
  private readonly queries: Queries
  private readonly pruner: Pruner

  /** Calls counted (successful ones, and every stored event as a failed one): migrations/006_calls.sql. */
  readonly calls: CallCounts

  constructor(db: BetterSqlite3.Database) {
    const catalog = new Catalog(db)
    this.calls = new CallCounts(db)
    this.writer = new Writer(db, catalog, this.calls)
    this.queries = new Queries(db, catalog)
    this.reporter = new Reporter(db, catalog, { all: () => this.queries.checkpoints() }, this.calls)
    this.pruner = new Pruner(db)
  }

  // writing

  /**
   * Stores the batches in ONE transaction: events (a duplicate id is counted, not stored),
   * incidents, buckets, ingest counters and checkpoints. Either all of it or nothing.
   */
  commit(batches: ReadonlyArray<IngestBatch>): CommitResult {
    return this.writer.commit(batches)
  }

  // checkpoints

  checkpoint(key: string): SourceCheckpoint | null {
    return this.queries.checkpoint(key)
  }

  checkpoints(): SourceCheckpoint[] {
    return this.queries.checkpoints()
  }

  forgetCheckpoint(key: string): void {
    this.queries.forgetCheckpoint(key)
  }

  // events, report, incidents

  getEvent(id: string): FailureEvent | null {
    return this.queries.getEvent(id)
  }

  /** Newest first, keyset-paginated (queries.ts). Throws StoreQueryError ("bad_cursor", "bad_limit"). */
  listEvents(q: ListEventsQuery): EventPage {
    return this.queries.listEvents(q)
  }

  /** CONTRACT section 6 over [since, until) (report.ts). Throws StoreQueryError("bad_window"). */
  report(q: ReportQuery): Report {
    return this.reporter.report(q)
  }

  /** Fingerprints, most recently seen first. `active` = lastSeen within the last hour. */
  incidents(q: IncidentsQuery = {}): IncidentPage {
    return this.queries.incidents(q)
  }

  // metrics and diagnosis

  /** Start-up values for the counters and gauges of CONTRACT section 9. */
  ingestTotals(): IngestTotals {
    return this.queries.ingestTotals()
  }

  /** Models with failures in `service` since `sinceMs`, most recent first. */
  modelsSeen(service: string | null, sinceMs: number): Array<ModelSeen> {
    return this.queries.modelsSeen(service, sinceMs)
  }

  /** Models in which "the same failure" as `fingerprint` was last seen since `sinceMs`. */
  fingerprintModels(fingerprint: string, sinceMs: number): string[] {
    return this.queries.fingerprintModels(fingerprint, sinceMs)
  }

  // retention (prune.ts)

  /** Deletes events older than `retentionDays` (and old buckets); returns the number of events deleted. */
  prune(now: number, retentionDays: number, chunk?: number): number {
    return this.pruner.prune(now, retentionDays, chunk)
  }

  size(): DatabaseSize {
    return this.pruner.size()
  }

  pruneOldest(chunk?: number): { deleted: number; newestDeleted: number | null } {
    return this.pruner.pruneOldest(chunk)
  }

  reclaim(): void {
    this.pruner.reclaim()
  }

  /** Enforces `database.maxSize` at once (the daemon uses `pruneToSizeEffect`, which yields between chunks). */
  pruneToSize(maxBytes: number, opts: SizePruneOptions = {}): SizePruneResult {
    return this.pruner.pruneToSize(maxBytes, opts)
  }
}

/** The event store over the shared database handle. */
export class EventStoreService extends Context.Tag("faultline/EventStore")<EventStoreService, EventStore>() {
  static readonly layer: Layer.Layer<EventStoreService, never, Database> = Layer.effect(
    EventStoreService,
    Effect.map(Database, ({ db }) => new EventStore(db))
  )
}
