/**
 * The SQLite file: opened once, WAL, migrations from `migrations/*.sql` applied in order at
 * start-up, each once, inside its own transaction (a `kill -9` mid-migration leaves the
 * previous version). A database newer than this code is refused.
 */
import BetterSqlite3 from "better-sqlite3"
import { Context, Data, Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

export class DatabaseError extends Data.TaggedError("DatabaseError")<{
  readonly reason: "open" | "migrate" | "too_new"
  readonly message: string
}> {}

export interface Migration {
  readonly version: number
  readonly name: string
  readonly sql: string
}

/** Finds the `migrations/` folder whether we run from `src/` (tests) or `dist/src/` (built). */
export const migrationsDir = (): string => {
  let dir = path.dirname(fileURLToPath(import.meta.url))
  for (let i = 0; i < 6; i++) {
    const candidate = path.join(dir, "migrations")
    if (fs.existsSync(candidate) && fs.statSync(candidate).isDirectory()) return candidate
    dir = path.dirname(dir)
  }
  throw new Error("migrations/ folder not found next to the faultline package")
}

export const loadMigrations = (dir: string = migrationsDir()): ReadonlyArray<Migration> =>
  fs
    .readdirSync(dir)
    .filter((f) => /^\d+_.+\.sql$/.test(f))
    .map((f) => ({ version: parseInt(f, 10), name: f, sql: fs.readFileSync(path.join(dir, f), "utf8") }))
    .sort((a, b) => a.version - b.version)

/** Open (creating the folder), set pragmas, migrate. Throws DatabaseError. */
export const openDatabase = (file: string, migrations: ReadonlyArray<Migration> = loadMigrations()): BetterSqlite3.Database => {
  let db: BetterSqlite3.Database
  try {
    if (file !== ":memory:") fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true })
    db = new BetterSqlite3(file)
    db.pragma("journal_mode = WAL")
    db.pragma("synchronous = NORMAL")
    db.pragma("foreign_keys = ON")
    // SQLite waits out a lock held by another process on the main thread: keep that short and
    // let the callers' retry schedules (async) do the waiting, so the daemon keeps answering.
    db.pragma("busy_timeout = 100")
  } catch (e) {
    throw new DatabaseError({ reason: "open", message: openFailure(file, e) })
  }
  try {
    migrate(db, migrations)
  } catch (e) {
    db.close()
    if (e instanceof DatabaseError) throw e
    throw new DatabaseError({ reason: "open", message: openFailure(file, e) })
  }
  return db
}

/** One line: the path, what SQLite said, and what to do about it. */
const openFailure = (file: string, e: unknown): string => {
  const said = e instanceof Error ? e.message : String(e)
  const hint = /readonly|read-only|permission denied|access/i.test(said)
    ? "the file or its folder is not writable by this user: give faultline write access, or set database.path (FAULTLINE_DB) to a writable place"
    : /unable to open/i.test(said)
      ? "check that the folder exists and this user may create files in it, or set database.path (FAULTLINE_DB)"
      : /not a database|malformed|corrupt/i.test(said)
        ? "the file is not a faultline database or it is damaged: set database.path (FAULTLINE_DB) to another file"
        : /locked|busy/i.test(said)
          ? "another process holds the database: stop it, or set database.path (FAULTLINE_DB) to another file"
          : "set database.path (FAULTLINE_DB) to a writable SQLite file"
  return `cannot open database ${file}: ${said} (${hint})`
}

const statements = new WeakMap<BetterSqlite3.Database, Map<string, BetterSqlite3.Statement>>()

/**
 * `db.prepare(sql)`, prepared once per connection: for code that runs a fixed statement on every
 * batch (tickets, notifications), where preparing it again each time showed in profiles.
 */
export const statement = (db: BetterSqlite3.Database, sql: string): BetterSqlite3.Statement => {
  let cache = statements.get(db)
  if (cache === undefined) statements.set(db, (cache = new Map()))
  let st = cache.get(sql)
  if (st === undefined) cache.set(sql, (st = db.prepare(sql)))
  return st
}

export const migrate = (db: BetterSqlite3.Database, migrations: ReadonlyArray<Migration>): void => {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`)
  const applied = new Set(db.prepare("SELECT version FROM schema_migrations").pluck().all() as number[])
  const known = migrations.length === 0 ? 0 : migrations[migrations.length - 1]!.version
  const newest = Math.max(0, ...applied)
  if (newest > known) {
    throw new DatabaseError({
      reason: "too_new",
      message: `database schema version ${newest} is newer than this faultline knows (${known}); upgrade faultline or use another database file`
    })
  }
  const record = db.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)")
  for (const m of migrations) {
    if (applied.has(m.version)) continue
    try {
      db.transaction(() => {
        db.exec(m.sql)
        record.run(m.version, m.name, new Date().toISOString())
      }).immediate()
    } catch (e) {
      throw new DatabaseError({ reason: "migrate", message: `migration ${m.name} failed: ${(e as Error).message}` })
    }
  }
}

/** The open database, shared by every store of the daemon. */
export class Database extends Context.Tag("faultline/Database")<
  Database,
  { readonly db: BetterSqlite3.Database; readonly file: string }
>() {
  static readonly layer = (file: string): Layer.Layer<Database, DatabaseError> =>
    Layer.scoped(
      Database,
      Effect.acquireRelease(
        Effect.try({
          try: () => ({ db: openDatabase(file), file }),
          catch: (e) => (e instanceof DatabaseError ? e : new DatabaseError({ reason: "open", message: String(e) }))
        }),
        ({ db }) => Effect.sync(() => db.open && db.close())
      )
    )
}
