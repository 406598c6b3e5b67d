import BetterSqlite3 from "better-sqlite3"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { DatabaseError, loadMigrations, migrate, openDatabase } from "../../src/store/Database.js"
import { tempDir } from "./fixtures.js"

const catchSync = (f: () => unknown): unknown => {
  try {
    f()
  } catch (e) {
    return e
  }
  throw new Error("expected an exception")
}

describe("Database migrations", () => {
  it("applies every migration once, records it, and creates the core tables", () => {
    const file = path.join(tempDir(), "nested", "faultline.db")
    const db = openDatabase(file)
    const rows = db.prepare("SELECT version, name, applied_at FROM schema_migrations ORDER BY version").all() as Array<{
      version: number
      name: string
      applied_at: string
    }>
    const known = loadMigrations()
    expect(rows.map((r) => r.version)).toEqual(known.map((m) => m.version))
    expect(rows[0]).toMatchObject({ version: 1, name: "001_core.sql" })
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')").pluck().all() as string[]
    for (const t of ["events", "incidents", "sources", "ingest_counters", "series", "buckets_minute", "buckets_hour", "buckets_day", "timeline_minute", "timeline_hour"]) {
      expect(tables).toContain(t)
    }
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal")
    db.close()
  })

  it("reopening an up-to-date database is a no-op", () => {
    const file = path.join(tempDir(), "faultline.db")
    const first = openDatabase(file)
    const before = first.prepare("SELECT * FROM schema_migrations ORDER BY version").all()
    first.prepare("INSERT INTO ingest_counters (source, lines_read, updated_at) VALUES ('x', 5, 0)").run()
    first.close()
    const again = openDatabase(file)
    expect(again.prepare("SELECT * FROM schema_migrations ORDER BY version").all()).toEqual(before)
    expect(again.prepare("SELECT lines_read FROM ingest_counters WHERE source = 'x'").pluck().get()).toBe(5)
    again.close()
  })

  it("moves a database of the previous release (migrations 001-003, events stored) to the provider layout", async () => {
    const file = path.join(tempDir(), "faultline.db")
    const old = loadMigrations().filter((m) => m.version <= 3)
    const { EventStore } = await import("../../src/store/EventStore.js")
    const { ev } = await import("./fixtures.js")
    // what the previous release wrote: its schema, one event through its series key
    const before = openDatabase(file, old)
    const cols = before.prepare("SELECT name FROM pragma_table_info('events')").pluck().all() as string[]
    expect(cols).not.toContain("provider")
    // (the previous store had no provider column: write the event as it did)
    const e = ev({ at: Date.UTC(2026, 10, 21, 10), provider: null })
    before.prepare("INSERT INTO events (id, occurred_at, ingested_at, source, line, service, status, code, message, model, request_id, endpoint, stream, category, rate_limit_kind, severity, retryable, action, fingerprint, body_not_json, sample) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
      .run(e.id, Date.parse(e.occurredAt), Date.parse(e.ingestedAt), e.source, e.line, e.service, e.status, e.code, e.message, e.model, e.requestId, e.endpoint, 0, e.category, e.rateLimitKind, e.severity, 1, e.action, e.fingerprint, 0, e.sample)
    before.close()

    const db = openDatabase(file)
    const versions = db.prepare("SELECT version FROM schema_migrations ORDER BY version").pluck().all()
    expect(versions).toEqual(loadMigrations().map((m) => m.version))
    const store = new EventStore(db)
    const got = store.getEvent(e.id)
    expect(got).toMatchObject({ id: e.id, provider: null, model: e.model, category: e.category })
    // new events carry their provider and can be filtered by it
    const at = Date.UTC(2026, 10, 21, 11)
    store.commit([{ source: "webhook", linesRead: 1, ignored: 0, checkpoint: null, events: [ev({ at, provider: "anthropic" })] }])
    const page = store.listEvents({ provider: "anthropic", limit: 10, since: at - 1, until: at + 1 })
    expect(page.events.map((x) => x.provider)).toEqual(["anthropic"])
    expect(store.report({ since: at - 3_600_000, until: at + 3_600_000 }).byProvider).toEqual({ anthropic: 1 })
    db.close()
  })

  it("refuses a database whose schema is newer than this code, with a clear message", () => {
    const file = path.join(tempDir(), "faultline.db")
    openDatabase(file).close()
    const raw = new BetterSqlite3(file)
    raw.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, '999_future.sql', 'x')").run()
    raw.close()
    const err = catchSync(() => openDatabase(file))
    expect(err).toBeInstanceOf(DatabaseError)
    expect((err as DatabaseError).reason).toBe("too_new")
    expect((err as DatabaseError).message).toMatch(/version 999 is newer/)
  })

  it("a failing migration leaves the previous version and says which one failed", () => {
    const db = new BetterSqlite3(":memory:")
    const ok = { version: 1, name: "001_a.sql", sql: "CREATE TABLE a (x INTEGER);" }
    const bad = { version: 2, name: "002_b.sql", sql: "CREATE TABLE b (x INTEGER); INSERT INTO nope VALUES (1);" }
    const err = catchSync(() => migrate(db, [ok, bad]))
    expect((err as DatabaseError).reason).toBe("migrate")
    expect((err as DatabaseError).message).toContain("002_b.sql")
    expect(db.prepare("SELECT version FROM schema_migrations").pluck().all()).toEqual([1])
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'b'").get()).toBeUndefined()
    migrate(db, [ok]) // applied once: running again changes nothing
    expect(db.prepare("SELECT count(*) FROM schema_migrations").pluck().get()).toBe(1)
    db.close()
  })
})
