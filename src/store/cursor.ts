/**
 * The `nextCursor` of every list endpoint (CONTRACT section 6), one codec for all: an opaque
 * base64url string holding which list it pages, the position of the last item served and a
 * check, so that a cursor that this daemon did not hand out — typed by hand, cut short, taken
 * from another list — is refused with 400 instead of silently answering an empty or wrong page.
 * The check is integrity against mistakes, not a secret: a cursor only ever names a position.
 */
import { createHash } from "node:crypto"

export type Position = ReadonlyArray<number | string>

export class CursorError extends Error {
  readonly _tag = "CursorError"
  constructor() {
    super("cursor is not a nextCursor returned by this endpoint")
  }
}

const check = (list: string, position: Position): string =>
  createHash("sha1").update(`faultline-cursor\u0000${list}\u0000${JSON.stringify(position)}`).digest("base64url").slice(0, 8)

export const encodeCursor = (list: string, position: Position): string =>
  Buffer.from(JSON.stringify([list, position, check(list, position)]), "utf8").toString("base64url")

/** The position a cursor of `list` names; throws CursorError for anything else. */
export const decodeCursor = (list: string, cursor: string): Position => {
  if (!/^[A-Za-z0-9_-]{1,2048}$/.test(cursor)) throw new CursorError()
  let value: unknown
  try {
    value = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"))
  } catch {
    throw new CursorError()
  }
  if (!Array.isArray(value) || value.length !== 3 || value[0] !== list || !Array.isArray(value[1])) throw new CursorError()
  const position = value[1] as unknown[]
  if (!position.every((p) => typeof p === "string" || Number.isSafeInteger(p))) throw new CursorError()
  if (value[2] !== check(list, position as Position)) throw new CursorError()
  return position as Position
}

/** A cursor of a list read newest first by an integer `seq`. */
export const decodeSeqCursor = (list: string, cursor: string): number => {
  const p = decodeCursor(list, cursor)
  if (p.length !== 1 || typeof p[0] !== "number" || p[0] < 0) throw new CursorError()
  return p[0]
}
