/**
 * Small pieces shared by the rooms of the event store (write path, report, queries, prune): time
 * arithmetic, SQL value conversions, the event cursor, page limits and optional WHERE clauses.
 */
import { instantMs } from "../classify/Event.js"
import { decodeCursor, encodeCursor } from "./cursor.js"
import { StoreQueryError } from "./report-shape.js"

export const MINUTE = 60_000
export const HOUR = 3_600_000
export const DAY = 86_400_000
export const MAX_PAGE = 1_000
/** An incident is active while its last occurrence is this recent. */
export const ACTIVE_MS = HOUR

export type SqlCode = number | string | bigint | null

const mod = (x: number, m: number): number => ((x % m) + m) % m
export const floorTo = (x: number, unit: number): number => x - mod(x, unit)
export const ceilTo = (x: number, unit: number): number => {
  const f = floorTo(x, unit)
  return f === x ? x : f + unit
}
export const iso = (ms: number): string => new Date(ms).toISOString()

/** Epoch ms of an ISO instant; falls back when the text is not a date (the store never fails a batch on it). */
export const toMs = (text: string, fallback: number): number => {
  const t = instantMs(text)
  return Number.isFinite(t) ? t : fallback
}

/** Integer codes are bound as INTEGER (better-sqlite3 binds JS numbers as REAL). */
export const sqlCode = (code: number | string | null): SqlCode =>
  typeof code === "number" && Number.isSafeInteger(code) ? BigInt(code) : code

/** Events are paged by (occurredAt, id), newest first. */
export const encodeEventCursor = (occurredAtMs: number, id: string): string => encodeCursor("events", [occurredAtMs, id])

export const badCursor = (): StoreQueryError =>
  new StoreQueryError({ reason: "bad_cursor", message: "cursor is not a nextCursor returned by this endpoint" })

/** A position of `list` of the form [epoch ms, id]; throws StoreQueryError("bad_cursor"). */
export const decodeKeyset = (list: string, cursor: string): readonly [number, string] => {
  let p: ReadonlyArray<number | string>
  try {
    p = decodeCursor(list, cursor)
  } catch {
    throw badCursor()
  }
  if (p.length !== 2 || typeof p[0] !== "number" || typeof p[1] !== "string") throw badCursor()
  return [p[0], p[1]]
}

export const decodeEventCursor = (cursor: string): readonly [number, string] => decodeKeyset("events", cursor)

export const checkLimit = (limit: number, max: number): number => {
  if (!Number.isFinite(limit) || limit < 1) {
    throw new StoreQueryError({ reason: "bad_limit", message: `limit must be a positive integer, got ${limit}` })
  }
  return Math.min(max, Math.floor(limit))
}

/** A WHERE clause from optional filters: a condition is added only when all its values are given. */
export class Where {
  private readonly conditions: string[] = []
  readonly params: Array<string | number> = []

  add(condition: string, ...values: ReadonlyArray<string | number | undefined>): this {
    if (values.some((v) => v === undefined)) return this
    this.conditions.push(condition)
    for (const v of values) this.params.push(v!)
    return this
  }

  /** ` WHERE a AND b`, or nothing. */
  get sql(): string {
    return this.conditions.length > 0 ? ` WHERE ${this.conditions.join(" AND ")}` : ""
  }

  /** ` AND a AND b` after a condition of the caller's, or nothing. */
  get and(): string {
    return this.conditions.length > 0 ? ` AND ${this.conditions.join(" AND ")}` : ""
  }
}
