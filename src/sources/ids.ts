/**
 * Event ids: `evt_` + a ULID (26 Crockford base32 characters: 48-bit millisecond time, then 80
 * bits). Fresh ids are random and monotonic within a millisecond; replayed bytes get the same id
 * from `deterministicEventId` (its 80 bits are a hash of the key).
 */
import { webcrypto } from "node:crypto"
import { hash64 } from "../classify/classify.js"

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
 * of `key` (the tailer uses `file-identity:byte-offset`): the same bytes replayed give the same id.
 */
export function deterministicEventId(key: string, timeMs: number): string {
  const [a, b] = hash64(key, 0)
  const [c] = hash64(key, 0x9e3779b9)
  const lanes = [a, b, c]
  const digits = new Uint8Array(RANDOM_LEN)
  for (let i = 0; i < RANDOM_LEN; i++) digits[i] = (lanes[i % 3] >>> (5 * Math.floor(i / 3))) & 31
  return "evt_" + encodeTime(timeMs) + encodeDigits(digits)
}

export const EVENT_ID_RE = /^evt_[0-9A-HJKMNP-TV-Z]{26}$/
