/**
 * The last failure of each model (all time, from the per-day buckets' `last_seen`): the report
 * page's model health table says when a model last failed, even when that was before the window.
 */
import type BetterSqlite3 from "better-sqlite3"

export const lastFailureByModel = (db: BetterSqlite3.Database, models: ReadonlyArray<string | null>): Map<string | null, string> => {
  const out = new Map<string | null, string>()
  if (models.length === 0) return out
  const wanted = new Set(models)
  // one pass over the day buckets (a row per day and series)
  const rows = db.prepare(`SELECT s.model AS model, MAX(b.last_seen) AS last FROM buckets_day b JOIN series s ON s.id = b.series GROUP BY s.model`).all() as Array<{
    model: string | null
    last: number
  }>
  for (const r of rows) if (wanted.has(r.model)) out.set(r.model, new Date(r.last).toISOString())
  return out
}
