/**
 * The record's own time: JSON time keys, timestamps in text, epoch numbers -> ISO-8601.
 */
import { type Draft, isDigit } from "./draft.js"

/** The first time found: JSON time keys of the outermost object first, then timestamps in texts. */
export function resolveTime(d: Draft): string | null {
  for (const o of d.timeObjects) {
    for (const k of TIME_KEYS) {
      const t = timeValue(o[k])
      if (t !== null) return t
    }
  }
  for (const s of d.timeTexts) {
    const t = findTimestamp(s)
    if (t !== null) return t
  }
  return null
}

const TIME_KEYS = ["time", "timestamp", "@timestamp", "ts", "date", "datetime", "asctime", "t"] as const

const TS_RE = /(\d{4})[-/.](\d\d)[-/.](\d\d)[T ](\d\d):(\d\d):(\d\d)(?:[.,](\d{1,9}))?[ ]?(Z|[+-]\d\d:?\d\d|UTC|GMT)?/

/** The record's own timestamp, searched near its start. Naive timestamps are UTC. */
export function findTimestamp(s: string): string | null {
  const m = TS_RE.exec(s.length > 200 ? s.slice(0, 200) : s)
  return m === null ? null : isoFromMatch(m)
}

function isoFromMatch(m: RegExpExecArray): string | null {
  const y = Number(m[1])
  const mo = Number(m[2])
  const day = Number(m[3])
  const h = Number(m[4])
  const mi = Number(m[5])
  const sec = Number(m[6])
  if (y < 1990 || y > 2200 || mo < 1 || mo > 12 || day < 1 || day > 31 || h > 23 || mi > 59 || sec > 60) return null
  const ms = m[7] === undefined ? 0 : Math.floor(Number(m[7].padEnd(3, "0").slice(0, 3)))
  let t = Date.UTC(y, mo - 1, day, h, mi, Math.min(sec, 59), ms)
  const zone = m[8]
  if (zone !== undefined && zone !== "Z" && zone !== "UTC" && zone !== "GMT") {
    const sign = zone[0] === "-" ? -1 : 1
    const digits = zone.slice(1).replace(":", "")
    t -= sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4))) * 60_000
  }
  return Number.isFinite(t) && t >= 0 && t <= 7258118400000 ? isoFromEpochMs(t) : null
}

let isoSecond = NaN

let isoPrefix = ""

/** `Date#toISOString` for epoch milliseconds, with the `YYYY-MM-DDTHH:MM:SS.` prefix cached per second. */
function isoFromEpochMs(ms: number): string {
  const t = Math.floor(ms)
  const sec = Math.floor(t / 1000)
  if (sec !== isoSecond) {
    const iso = new Date(sec * 1000).toISOString()
    if (iso.length !== 24) return new Date(t).toISOString()
    isoSecond = sec
    isoPrefix = iso.slice(0, 20)
  }
  const frac = t - sec * 1000
  // joined, not concatenated: a flat string, which every later reader of the instant
  // (instantMs, five times per event) scans ~4x faster than a concatenation's rope
  return [isoPrefix, frac < 10 ? "00" : frac < 100 ? "0" : "", frac, "Z"].join("")
}

/** Already `YYYY-MM-DDTHH:MM:SS.sssZ` (what pino, winston and most shippers write). */
function isCanonicalIso(v: string): boolean {
  if (v.length !== 24 || v.charCodeAt(23) !== 90 || v.charCodeAt(10) !== 84 || v.charCodeAt(19) !== 46) return false
  if (v.charCodeAt(4) !== 45 || v.charCodeAt(7) !== 45 || v.charCodeAt(13) !== 58 || v.charCodeAt(16) !== 58) return false
  for (const i of ISO_DIGITS) if (!isDigit(v.charCodeAt(i))) return false
  const two = (i: number): number => (v.charCodeAt(i) - 48) * 10 + v.charCodeAt(i + 1) - 48
  const month = two(5)
  const day = two(8)
  return month >= 1 && month <= 12 && day >= 1 && day <= 31 && two(11) <= 23 && two(14) <= 59 && two(17) <= 59
}

const ISO_DIGITS = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18, 20, 21, 22]

/** Epoch seconds / milliseconds / microseconds as whole milliseconds; null outside 1990–2200. */
export function epochMsOf(v: number): number | null {
  if (!Number.isFinite(v) || v <= 0) return null
  const ms = v > 1e14 ? v / 1000 : v > 1e11 ? v : v * 1000
  return ms < 631152000000 || ms > 7258118400000 ? null : Math.floor(ms)
}

/** A JSON time value: epoch seconds / milliseconds / microseconds, or a date string. */
export function timeValue(v: unknown): string | null {
  if (typeof v === "number") {
    const ms = epochMsOf(v)
    return ms === null ? null : isoFromEpochMs(ms)
  }
  if (typeof v !== "string" || v.length < 8 || v.length > 64) return null
  if (isCanonicalIso(v)) return v
  if (/^\d+(?:\.\d+)?$/.test(v)) return timeValue(Number(v))
  const m = TS_RE.exec(v)
  if (m !== null) return isoFromMatch(m)
  const t = Date.parse(v)
  return Number.isNaN(t) ? null : new Date(t).toISOString()
}
