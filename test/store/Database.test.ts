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
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[]
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
