/**
 * A record's template: its text with the parts that vary from one occurrence of the same failure
 * to the next cut out into slots — timestamps, epoch numbers, request and trace ids, hex ids,
 * durations. During a storm the same few failures repeat with only these parts changed, so the
 * template is what the record memo (sources/recordMemo.ts) keys its remembered verdicts on.
 *
 * Slots are chosen by shape only, never by meaning: a status (`429`), a body code (`50603`), a
 * model name (`gpt-4o`, `claude-3-5-sonnet-20241022`) stay in the key. Whether a slot really is
 * noise is not decided here: the memo checks each slot the first time it sees it vary.
 *
 * Runs on redacted text only (a secret is gone before it could sit in a slot). One pass of
 * `charCodeAt`, no regex: ~1 µs for a 300-character line.
 */

export const enum SlotKind {
  /** A date-time (`2026-12-06 05:10:48,123`, `2026-12-06T05:10:48.123Z`) or a clock time. */
  Time = 1,
  /** A number of ten digits or more (epoch seconds or milliseconds), with its fraction. */
  Number = 2,
  /** A request / trace id: after an `…id` key, a UUID, a hex or long mixed-case token. */
  Id = 3,
  /** A duration's number (`in 452ms`, `1.5s`). */
  Duration = 4
}

export interface RecordTemplate {
  /** The text with each slot replaced by a marker of its kind. */
  readonly key: string
  /** The slots' texts, in order. */
  readonly values: ReadonlyArray<string>
  /** Where each slot starts in the text. */
  readonly starts: ReadonlyArray<number>
  readonly kinds: ReadonlyArray<SlotKind>
}

/** Longer records are rarely repeated word for word around their ids, and cost more to key. */
export const TEMPLATE_MAX_CHARS = 4096
/** At most this many slots (a bit mask each in the memo). */
export const TEMPLATE_MAX_SLOTS = 30

const MARKS = ["", "\u0000\u0001", "\u0000\u0002", "\u0000\u0003", "\u0000\u0004"] as const

const DIGIT = 1
const HEX_LETTER = 2
const LETTER = 4
/** ASCII character classes: a table look-up per character in the word loop. */
const CLASS = new Uint8Array(128)
for (let c = 48; c <= 57; c++) CLASS[c] = DIGIT
for (let c = 65; c <= 90; c++) CLASS[c] = CLASS[c + 32] = c <= 70 ? HEX_LETTER : LETTER

const isDigit = (c: number): boolean => c >= 48 && c <= 57
const isLetter = (c: number): boolean => (c | 32) >= 97 && (c | 32) <= 122
const isAlnum = (c: number): boolean => isDigit(c) || isLetter(c)
const isHexLetter = (c: number): boolean => (c | 32) >= 97 && (c | 32) <= 102

function digitsFrom(s: string, i: number, n: number): number {
  while (i < n && isDigit(s.charCodeAt(i))) i++
  return i
}

/** `s[i, i+count)` are digits. */
function digitsAt(s: string, i: number, count: number): boolean {
  if (i + count > s.length) return false
  for (let k = 0; k < count; k++) if (!isDigit(s.charCodeAt(i + k))) return false
  return true
}

/** After `HH:MM:SS` at `i`: its end with a fraction, or -1. */
function clockEnd(s: string, i: number, n: number): number {
  if (!digitsAt(s, i, 2) || s.charCodeAt(i + 2) !== 58 || !digitsAt(s, i + 3, 2) || s.charCodeAt(i + 5) !== 58 || !digitsAt(s, i + 6, 2)) return -1
  let e = i + 8
  const f = s.charCodeAt(e)
  if ((f === 46 || f === 44) && isDigit(s.charCodeAt(e + 1))) e = digitsFrom(s, e + 1, n)
  return e
}

/** A zone after a time (`Z`, `+08:00`, `-0500`, ` UTC`): its end, or `e` when there is none. */
function zoneEnd(s: string, e: number): number {
  let z = e
  if (s.charCodeAt(z) === 32) z++
  const c = s.charCodeAt(z)
  if (c === 90 && !isAlnum(s.charCodeAt(z + 1))) return z + 1
  if ((c === 43 || c === 45) && digitsAt(s, z + 1, 2)) {
    let k = z + 3
    if (s.charCodeAt(k) === 58) k++
    if (digitsAt(s, k, 2) && !isAlnum(s.charCodeAt(k + 2))) return k + 2
  }
  if ((s.startsWith("UTC", z) || s.startsWith("GMT", z)) && !isAlnum(s.charCodeAt(z + 3))) return z + 3
  return e
}

/** A date at `i` (`YYYY-MM-DD`, `/` or `.` too), with its time and zone: the end, or -1. */
function dateTimeEnd(s: string, i: number, n: number): number {
  const sep = s.charCodeAt(i + 4)
  if ((sep !== 45 && sep !== 47 && sep !== 46) || !digitsAt(s, i + 5, 2) || s.charCodeAt(i + 7) !== sep || !digitsAt(s, i + 8, 2)) return -1
  let e = i + 10
  const t = s.charCodeAt(e)
  if (t === 84 || t === 32) {
    const c = clockEnd(s, e + 1, n)
    if (c !== -1) e = zoneEnd(s, c)
  }
  return isAlnum(s.charCodeAt(e)) ? -1 : e
}

const UNITS = ["ms", "s", "sec", "secs", "seconds", "m", "min", "mins", "minutes", "h", "us"]

/** `s[a, b)` is a unit of time. */
function isUnit(s: string, a: number, b: number): boolean {
  const len = b - a
  if (len < 1 || len > 7) return false
  for (const u of UNITS) if (u.length === len && s.startsWith(u, a)) return true
  return false
}

/** How often `s[i, j)` goes from digits to letters or back. */
function switches(s: string, i: number, j: number): number {
  let n = 0
  for (let k = i + 1; k < j; k++) if (isDigit(s.charCodeAt(k)) !== isDigit(s.charCodeAt(k - 1))) n++
  return n
}

/** An IPv4 address whose first number is `s[i, j)`: its end (a port stays outside), or -1. */
function ipv4End(s: string, i: number, j: number): number {
  let k = j
  for (let part = 0; part < 3; part++) {
    if (s.charCodeAt(k) !== 46) return -1
    const e = digitsFrom(s, k + 1, s.length)
    if (e === k + 1 || e - k - 1 > 3) return -1
    k = e
  }
  return isAlnum(s.charCodeAt(k)) || (s.charCodeAt(k) === 46 && isDigit(s.charCodeAt(k + 1))) ? -1 : k
}

/** A UUID's first group at `i` (8 hex digits, `j` its end): the UUID's end, or -1. */
function uuidEnd(s: string, i: number, j: number): number {
  if (j - i !== 8) return -1
  let k = j
  for (const len of [4, 4, 4, 12]) {
    if (s.charCodeAt(k) !== 45) return -1
    for (let m = 1; m <= len; m++) {
      const c = s.charCodeAt(k + m)
      if (!isDigit(c) && !isHexLetter(c)) return -1
    }
    k += len + 1
  }
  return isAlnum(s.charCodeAt(k)) ? -1 : k
}

/** The prefixes ids carry in their own text (`req-…`, OpenAI's `chatcmpl-…`, `batch_…`, `file-…`), as written: lower case. */
const ID_PREFIXES: ReadonlyArray<string> = [
  "req", "request", "chatcmpl", "cmpl", "msg", "run", "call", "resp", "trace", "span", "sess", "conv", "job", "task",
  "batch", "file", "evt", "asst", "thread", "step", "vs", "rid", "txn"
]
/** ID_PREFIXES by length: compared in place, without a slice per word. */
const ID_PREFIXES_BY_LENGTH: ReadonlyArray<ReadonlyArray<string>> = Array.from({ length: 9 }, (_, n) => ID_PREFIXES.filter((p) => p.length === n))

/** `s[i, i+len)` is one of ID_PREFIXES. */
function isIdPrefix(s: string, i: number, len: number): boolean {
  for (const p of ID_PREFIXES_BY_LENGTH[len]!) if (s.startsWith(p, i)) return true
  return false
}

/** Names of keys whose value is an id (checked on the key's whole text, lower-cased, separators out). */
const ID_KEY_RE = /^(?:x?(?:request|req|trace|span|correlation|message|msg|call|run|response|completion|generation|session|conversation|event|job|task|amzn(?:request)?|msrequest|apimrequest|client(?:request)?)?id|rid)$/

/**
 * A key ending at `j` (a word ending in `id`, `Id` or `ID`) followed by
 * `:` or `=` and a value: the value's [start, end), or null.
 */
function keyedValue(s: string, i: number, j: number, n: number): [number, number] | null {
  let v = j
  if (s.charCodeAt(v) === 34 || s.charCodeAt(v) === 39) v++
  while (s.charCodeAt(v) === 32) v++
  const sep = s.charCodeAt(v)
  if (sep !== 58 && sep !== 61) return null
  v++
  while (s.charCodeAt(v) === 32) v++
  // the key's whole text: back over word characters, `_` and `-`
  let k = i
  while (k > 0) {
    const c = s.charCodeAt(k - 1)
    if (!isAlnum(c) && c !== 95 && c !== 45) break
    k--
    if (i - k > 24) return null
  }
  const q = s.charCodeAt(v)
  if (q === 34 || q === 39) v++
  let e = v
  while (e < n && e - v <= 128) {
    const c = s.charCodeAt(e)
    if (c <= 32 || c === 34 || c === 39 || c === 96 || c === 44 || c === 59 || c === 125 || c === 93 || c === 41 || c === 38 || c === 60 || c === 62 || c === 92) break
    e++
  }
  // a sentence's full stop or a colon after the value is not the id's
  while (e > v && (s.charCodeAt(e - 1) === 46 || s.charCodeAt(e - 1) === 58)) e--
  if (e - v < 4 || e - v > 128) return null
  let name = s.slice(k, j).toLowerCase()
  if (name.indexOf("_") !== -1 || name.indexOf("-") !== -1) name = name.replace(/[-_]/g, "")
  if (!ID_KEY_RE.test(name)) return null
  const value = s.slice(v, e)
  return value === "null" || value === "None" || value === "undefined" ? null : [v, e]
}

/** The template of a (redacted) record; null when it is too long or has too many slots. */
export function recordTemplate(text: string): RecordTemplate | null {
  const n = text.length
  if (n > TEMPLATE_MAX_CHARS) return null
  const values: string[] = []
  const starts: number[] = []
  const kinds: SlotKind[] = []
  let key = ""
  let last = 0
  const slot = (a: number, b: number, kind: SlotKind): void => {
    key += text.slice(last, a) + MARKS[kind]
    values.push(text.slice(a, b))
    starts.push(a)
    kinds.push(kind)
    last = b
  }
  let i = 0
  while (i < n) {
    const c = text.charCodeAt(i)
    if (c >= 128 || CLASS[c] === 0) {
      i++
      continue
    }
    // a word: [i, j)
    let j = i
    let digits = 0
    let hex = true
    for (; j < n; j++) {
      const d = text.charCodeAt(j)
      const k = d < 128 ? CLASS[d]! : 0
      if (k === DIGIT) digits++
      else if (k === 0) break
      else if (k === LETTER) hex = false
    }
    const len = j - i
    let end = -1
    let kind: SlotKind = SlotKind.Id
    if (digits === len) {
      if (len === 4) {
        end = dateTimeEnd(text, i, n)
        kind = SlotKind.Time
      } else if (len === 2 && text.charCodeAt(j) === 58) {
        end = clockEnd(text, i, n)
        kind = SlotKind.Time
      }
      if (end === -1 && len <= 3 && text.charCodeAt(j) === 46 && text.charCodeAt(i - 1) !== 46) {
        end = ipv4End(text, i, j)
        kind = SlotKind.Id
      }
      if (end === -1) {
        // a number with its fraction: an epoch, or a duration with its unit
        let e = j
        if (text.charCodeAt(e) === 46 && isDigit(text.charCodeAt(e + 1))) e = digitsFrom(text, e + 1, n)
        let u = e
        while (u < n && isLetter(text.charCodeAt(u))) u++
        if (len >= 10 && u === e) {
          end = e
          kind = SlotKind.Number
        } else if (u > e && isUnit(text, e, u) && !isDigit(text.charCodeAt(u)) && (u === n || !isAlnum(text.charCodeAt(u)))) {
          end = e
          kind = SlotKind.Duration
        }
      }
    } else if (digits > 0) {
      const lead = digitsFrom(text, i, j)
      if (lead > i && isLetter(text.charCodeAt(lead)) && isUnit(text, lead, j)) {
        // `452ms`: the number is the slot, the unit stays
        end = lead
        kind = SlotKind.Duration
      } else if (hex && len >= 8) {
        end = uuidEnd(text, i, j)
        if (end === -1) end = j
      } else if (len >= 16 ? digits >= 2 : len >= 6 && digits >= 2 && len - digits >= 2 && switches(text, i, j) >= 3) {
        // `AbCdEf0123456789xyz`, `9ixa3f1`: letters and digits mixed, as ids are; not a status
        // run into a word (`400API`, `404NotFound`), nor a model's short words (`qwen2`, `8x7b`)
        end = j
      } else if (len >= 6 && (text.charCodeAt(i + 1) | 32) === 120 && text.charCodeAt(i) === 48) {
        // 0x7f3a9c0b1d20: an address
        end = j
      }
    }
    if (end === -1 && digits === 0 && len <= 8 && (text.charCodeAt(j) === 45 || text.charCodeAt(j) === 95) && isIdPrefix(text, i, len)) {
      // `req-3aa057`, `chatcmpl-9xYz…`, `batch_6a1f…`: an id's own prefix, then the id
      let e = j + 1
      let d = 0
      for (; e < n && e - j <= 128; e++) {
        const c = text.charCodeAt(e)
        if (isDigit(c)) d++
        else if (!isLetter(c) && c !== 45 && c !== 95) break
      }
      while (e > j + 1 && (text.charCodeAt(e - 1) === 45 || text.charCodeAt(e - 1) === 95)) e--
      if (d > 0 && e - j - 1 >= 4 && e - j <= 128) {
        if (values.length >= TEMPLATE_MAX_SLOTS) return null
        slot(j + 1, e, SlotKind.Id)
        i = e
        continue
      }
    }
    if (end === -1 && len <= 24 && len >= 2 && (text.charCodeAt(j - 1) | 32) === 100 && (text.charCodeAt(j - 2) | 32) === 105) {
      const kv = keyedValue(text, i, j, n)
      if (kv !== null) {
        if (values.length >= TEMPLATE_MAX_SLOTS) return null
        slot(kv[0], kv[1], SlotKind.Id)
        i = kv[1]
        continue
      }
    }
    if (end !== -1) {
      if (values.length >= TEMPLATE_MAX_SLOTS) return null
      slot(i, end, kind)
      i = end
    } else i = j
  }
  if (last === 0) return { key: text, values, starts, kinds }
  return { key: key + text.slice(last), values, starts, kinds }
}
