/** The report's `alerts` and `tickets` counts come from the alert tables. */
import type BetterSqlite3 from "better-sqlite3"
import type { Report } from "../store/EventStore.js"
import { alertCounts } from "./engine.js"

export const completeReport = (db: BetterSqlite3.Database, r: Report): Report => {
  const c = alertCounts(db)
  return { ...r, alerts: { firing: c.firing }, tickets: { open: c.ticketsOpen } }
}
