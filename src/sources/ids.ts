/**
 * Event ids: `evt_` + a ULID (26 Crockford base32 characters: 48-bit millisecond time, then 80
 * bits). Fresh ids are random and monotonic within a millisecond; replayed bytes get the same id
 * from `deterministicEventId` (its 80 bits are a hash of the key).
 */
import { webcrypto } from "node:crypto"
import { hash64Twice } from "../classify/classify.js"

const ENCODING = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
const TIME_LEN = 10
const RANDOM_LEN = 16
const MAX_TIME = 2 ** 48 - 1

const POOL_SIZE = 4096
const pool = new Uint8Array(POOL_SIZE)
let poolAt = POOL_SIZE

let lastTime = -1
/** The 80-bit random part of the last ULID, as 16 base32 digits (0..31). */
const lastRandom = new Uint8Array(RANDOM_LEN)

function fillRandom(digits: Uint8Array): void {
  if (poolAt + RANDOM_LEN > POOL_SIZE) {
    webcrypto.getRandomValues(pool)
    poolAt = 0
  }
  for (let i = 0; i < RANDOM_LEN; i++) digits[i] = pool[poolAt + i] & 31
  poolAt += RANDOM_LEN
}

/** Add one to the base32 digits; false on overflow. */
function increment(digits: Uint8Array): boolean {
  for (let i = RANDOM_LEN - 1; i >= 0; i--) {
    if (digits[i] < 31) {
      digits[i]++
      return true
    }
    digits[i] = 0
  }
  return false
}

let encodedMs = -1
let encodedTime = ""

function encodeTime(ms: number): string {
  let t = Math.min(MAX_TIME, Math.max(0, Math.floor(ms)))
  if (t === encodedMs) return encodedTime
  encodedMs = t
  let out = ""
  for (let i = 0; i < TIME_LEN; i++) {
    out = ENCODING[t % 32] + out
    t = Math.floor(t / 32)
  }
  encodedTime = out
  return out
}

function encodeDigits(digits: ArrayLike<number>): string {
  let out = ""
  for (let i = 0; i < RANDOM_LEN; i++) out += ENCODING[digits[i]]
  return out
}

/** A ULID, strictly increasing across calls in this process (also within one millisecond). */
export function ulid(now: number = Date.now()): string {
  const t = Math.min(MAX_TIME, Math.max(0, Math.floor(now)))
  if (t > lastTime) {
    lastTime = t
    fillRandom(lastRandom)
  } else if (!increment(lastRandom)) {
    // 2^80 ids in one millisecond: move to the next one.
    lastTime++
    fillRandom(lastRandom)
  }
  return encodeTime(lastTime) + encodeDigits(lastRandom)
}

/** A new event id: `evt_` + ULID. */
export function newEventId(now: number = Date.now()): string {
  return "evt_" + ulid(now)
}

/**
 * An `evt_` id shaped like a ULID whose time part is `timeMs` and whose 80 other bits are a hash
 * of `key` (the tailer uses `file-identity:byte-offset:record text`): the same bytes replayed give
 * the same id. `deterministicEventId(key, t) = eventIdAt(idHashOf(key), t)`.
 */
export function deterministicEventId(key: string | ReadonlyArray<string>, timeMs: number): string {
  return eventIdAt(idHashOf(key), timeMs)
}

/** The id of `deterministicEventId` from its hash part (`idHashOf`) and its time. */
export function eventIdAt(idHash: string, timeMs: number): string {
  return "evt_" + encodeTime(timeMs) + idHash
}

/**
 * The 80 hashed bits of a deterministic id, as 16 base32 digits. The key may come in parts,
 * hashed as their concatenation without building it: the tailer's key holds the whole record.
 * The tailer's scan worker computes this for each candidate record, off the main thread.
 */
export function idHashOf(key: string | ReadonlyArray<string>): string {
  // the 32-bit halves of hash64(key, 0) and the first of hash64(key, SEED2)
  const [a, b, c] = hash64Twice(typeof key === "string" ? [key] : key, SEED2)
  const digits = new Uint8Array(RANDOM_LEN)
  for (let i = 0; i < RANDOM_LEN; i++) digits[i] = ((i % 3 === 0 ? a : i % 3 === 1 ? b : c) >>> (5 * Math.floor(i / 3))) & 31
  return encodeDigits(digits)
}

const SEED2 = 0x9e3779b9

export const EVENT_ID_RE = /^evt_[0-9A-HJKMNP-TV-Z]{26}$/
