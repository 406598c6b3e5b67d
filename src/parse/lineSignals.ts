/**
 * What the pre-filter (`hasFailureSignal`) looks for besides status numbers, in two forms that
 * agree exactly:
 * - regexes for a text: `SIGNAL_WORDS_RE` (failure words), `SERVICE_CODE_RE` (the service's body);
 * - `lineSignals`, the same tests on the UTF-8 bytes of one line, for the tailer's scanner.
 *   It sees every byte of a tailed log, before the bytes are decoded, so it is a loop over a
 *   Uint8Array with one table lookup per byte (GRAMS) and a closer look only where the last four
 *   bytes can start a word or `code`: about twice as fast as the regexes over the decoded line,
 *   and as fast whatever the shape of the strings it has seen before (a loop over string
 *   characters is not: V8 slows it down for good once it meets a slice of a two-byte string).
 * Neither can span lines (no pattern holds a line break), so a record's signals are its lines'.
 */

/** `lineSignals` flags. */
export const LineSignal = {
  /** A failure word (SIGNAL_WORDS_RE). */
  Word: 1,
  /** The service's own body, `"code": 20012` (SERVICE_CODE_RE). */
  ServiceCode: 2,
  /** A byte above 0x7f: the line may hold the Chinese wordings, which only a text test sees. */
  NonAscii: 4,
  /** A word of an LLM API call (CALL_WORDS_RE): a record without a failure signal may still be a call to count. */
  Call: 8
} as const

/**
 * What a successful call of the LLM API shows besides its status (CONTRACT section 3): an LLM
 * endpoint or a model. Only records holding one are looked at for a call to count (call.ts);
 * the bytes' test (`lineSignals`, flag Call) matches exactly where this does.
 */
const CALL_WORDS: ReadonlyArray<string> = [
  "model", "completions", "generatecontent", "embeddings", "v1/messages", "audio/speech", "audio/transcriptions",
  "images/generations", "api/chat", "api/generate", "/invoke", "/converse", "v1/responses", "/rerank"
]
export const CALL_WORDS_RE = new RegExp(CALL_WORDS.join("|"), "i")
/** CALL_WORDS as bytes, lower case: compared where the gram table points, without decoding. */
const CALL_WORD_BYTES: ReadonlyArray<Uint8Array> = CALL_WORDS.map((w) => Buffer.from(w, "latin1"))

/** The service's own body (`{"code": 20012, "message": ...}`), whatever its wording. */
export const SERVICE_CODE_RE = /code\\?["']?[ \t]*[:=][ \t]*\\?["']?\d{5}\b/

/**
 * Words that may announce a failure, matched ASCII-case-insensitively anywhere in a record.
 * A pair is a word and what must (not) follow it: `processTicksAndRejections`, in nearly every
 * Node.js stack trace, is not "reject".
 */
const SIGNAL_WORDS: ReadonlyArray<string | readonly [word: string, after: string]> = [
  "err", "exceed", "exist", "exhaust", "econn", "enotfound", "eai_again", "fail", "forbidden", "limit", "denied",
  "invalid", "insufficient", "refused", "reset", ["reject", "(?!ions\\b)"], "realname", "real-name", "real name",
  "timeout", "timedout", "timed out", "time-out", "too many", "too large", ["tls", "\\b"], "unavailable",
  "unauthori", "unreachable", "overload", "busy", "balance", "bad gateway", "quota", "credit", "certificate", "ssl",
  "hang up", "proxy", "payment required", "again", "not found", "authorization required", "incorrect", "suspended",
  "arrear", "overdue", "high traffic", "not active", "unable to", "issue connecting", "over available", "cors policy", "unsupportedprotocol",
  "no such host", "goaway", "prematurely", "empty reply", "used up", "throttl", "validationexception", "expiredtoken",
  "unrecognizedclient", "modelnotready",
  // a stream cut in the middle of an answer (`stream disconnected before completion`, Go's `read stream: unexpected EOF`)
  "disconnect", "unexpected eof",
  // a relay's `model claude-haiku-4-5 is not supported`
  "not supported",
  // capacity in a provider's words (`We're currently experiencing high demand`, `a high volume of traffic`)
  "high demand", "high volume", "at capacity",
  // a retired model (`models/gemini-1.5-pro is no longer available`, `… is no longer supported`)
  "no longer available", "no longer supported",
  // Go's cancelled request (`request canceled, context canceled`)
  "context cancel"
]

const wordOf = (w: (typeof SIGNAL_WORDS)[number]): string => (typeof w === "string" ? w : w[0])
const alternative = (w: (typeof SIGNAL_WORDS)[number]): string => (typeof w === "string" ? w : w[0] + w[1])

/**
 * The alternatives grouped by their first letter (`e(?:rr|xceed|…)|f(?:ail|orbidden)|…`): at each
 * position the engine tries the one group of that letter instead of every word in turn (a third
 * of the pre-filter's time on a text went to this regex once the list passed 60 words).
 */
const byFirstLetter = (alternatives: ReadonlyArray<string>): string => {
  const groups = new Map<string, string[]>()
  for (const a of alternatives) {
    const c = a[0]!.toLowerCase()
    const g = groups.get(c)
    if (g === undefined) groups.set(c, [a.slice(1)])
    else g.push(a.slice(1))
  }
  return [...groups].map(([c, rests]) => `${c}(?:${rests.join("|")})`).join("|")
}

/** One of the words, anywhere (the words are letters, digits, spaces, `-`, `_`, `/` and `'`: nothing to escape). */
export const SIGNAL_WORDS_RE = new RegExp(byFirstLetter(SIGNAL_WORDS.map(alternative)), "i")
/** One of the words, starting exactly at `lastIndex`. */
const WORD_AT = new RegExp(SIGNAL_WORDS_RE.source, "iy")
/** Enough characters from a word's start to decide (the longest word and `ions` after `reject`). */
const WORD_WINDOW = Math.max(...SIGNAL_WORDS.map((w) => alternative(w).length)) + 8

/** Words whose first four letters are common in ordinary logs (`timestamp`): keyed on the next four. */
const COMMON_STARTS = new Set(["time"])

/**
 * The table, indexed by the last four bytes folded to 5 bits each (`b & 31`: both cases of an
 * ASCII letter fold to the same value; other bytes collide with letters, which only costs a
 * closer look). An entry says a word may start 3 bytes back (WORD) or 4 bytes back (WORD_BEHIND),
 * or `code` 3 bytes back (CODE).
 */
const WORD = 1
const WORD_BEHIND = 2
const CODE = 4
const CALL = 8
/** A call word keyed on its four bytes from its second (`odel`), third (`i/ch`) or sixth (`etio`) byte. */
const CALL_1 = 16
const CALL_2 = 32
const CALL_5 = 64
/** A failure word keyed on its four bytes from its sixth (`modelnotready`: `notr`, as `mode` opens every `model`). */
const WORD_5 = 128
const WORD_KEY_5: ReadonlySet<string> = new Set(["modelnotready"])
/**
 * Call words keyed further in than their start: their first four letters open words every log is
 * full of (`completed`, `mode`, `/api/users`), and each such place cost a closer look.
 */
const CALL_KEY_OFFSET: ReadonlyMap<string, 1 | 2 | 5> = new Map([["model", 1], ["completions", 5], ["api/chat", 2], ["api/generate", 2]])
const CALL_FLAG_AT = { 0: CALL, 1: CALL_1, 2: CALL_2, 5: CALL_5 } as const
const GRAM_MASK = 0xfffff
const gramOf = (s: string, from: number): number => {
  let g = 0
  for (let i = from; i < from + 4; i++) g = (g << 5) | (s.charCodeAt(i) & 31)
  return g
}
const GRAMS: Uint8Array = (() => {
  const t = new Uint8Array(GRAM_MASK + 1)
  for (const entry of SIGNAL_WORDS) {
    const w = wordOf(entry)
    if (w.length === 3) {
      // any fourth byte, or none (the line's end: see lineSignals)
      for (let b = 0; b < 32; b++) t[(gramOf(w + "a", 0) & ~31) | b] |= WORD
    } else if (WORD_KEY_5.has(w)) t[gramOf(w, 5)] |= WORD_5
    else if (w.length > 4 && COMMON_STARTS.has(w.slice(0, 4))) t[gramOf(w, 1)] |= WORD_BEHIND
    else t[gramOf(w, 0)] |= WORD
  }
  t[gramOf("code", 0)] |= CODE
  for (const w of CALL_WORDS) {
    const k = CALL_KEY_OFFSET.get(w) ?? 0
    t[gramOf(w, k)] |= CALL_FLAG_AT[k]
  }
  return t
})()

/**
 * The LineSignal flags of the UTF-8 bytes `[from, to)` of one line, without decoding them:
 * `Word` exactly when `SIGNAL_WORDS_RE.test(text)` and `ServiceCode` exactly when
 * `SERVICE_CODE_RE.test(text)` and `Call` exactly when `CALL_WORDS_RE.test(text)` for `text = bytes.toString("utf8", from, to)`. The patterns are
 * ASCII, and a byte of a multi-byte character is never ASCII (nor is U+FFFD, what an invalid
 * sequence decodes to), so they match at the same places in the bytes as in the text.
 */
export function lineSignals(bytes: Buffer, from: number, to: number): number {
  let signals = 0
  let g = 0
  let wide = 0
  let i = from
  // the table's flags still worth a closer look: a signal found is not looked for again
  let want = 0xff
  while (i < to) {
    // the hot loop, kept free of calls
    let f = 0
    for (; i < to; i++) {
      const b = bytes[i]!
      wide |= b
      g = ((g << 5) | (b & 31)) & GRAM_MASK
      f = GRAMS[g]! & want
      if (f !== 0) break
    }
    if (i === to) break
    if ((f & (WORD | WORD_BEHIND | WORD_5)) !== 0) {
      if (
        ((f & WORD) !== 0 && i - 3 >= from && wordAt(bytes, i - 3, to)) ||
        ((f & WORD_BEHIND) !== 0 && i - 4 >= from && wordAt(bytes, i - 4, to)) ||
        ((f & WORD_5) !== 0 && i - 8 >= from && wordAt(bytes, i - 8, to))
      ) {
        signals |= LineSignal.Word
        want &= ~(WORD | WORD_BEHIND | WORD_5)
      }
    }
    if ((f & CODE) !== 0 && i - 3 >= from && serviceCodeAt(bytes, i - 3, to)) {
      signals |= LineSignal.ServiceCode
      want &= ~CODE
    }
    if ((f & (CALL | CALL_1 | CALL_2 | CALL_5)) !== 0 && callAt(bytes, f, i, from, to)) {
      signals |= LineSignal.Call
      want &= ~(CALL | CALL_1 | CALL_2 | CALL_5)
    }
    i++
  }
  // a three-letter word at the very end
  if ((signals & LineSignal.Word) === 0 && to - from >= 3 && (GRAMS[(g << 5) & GRAM_MASK]! & WORD) !== 0 && wordAt(bytes, to - 3, to)) {
    signals |= LineSignal.Word
  }
  return signals | (wide > 0x7f ? LineSignal.NonAscii : 0)
}

/** A call word starts where one of the CALL flags in `f` (the gram ending at byte `i`) says it may. */
function callAt(bytes: Buffer, f: number, i: number, from: number, to: number): boolean {
  return (
    ((f & CALL) !== 0 && i - 3 >= from && callWordAt(bytes, i - 3, to)) ||
    ((f & CALL_1) !== 0 && i - 4 >= from && callWordAt(bytes, i - 4, to)) ||
    ((f & CALL_2) !== 0 && i - 5 >= from && callWordAt(bytes, i - 5, to)) ||
    ((f & CALL_5) !== 0 && i - 8 >= from && callWordAt(bytes, i - 8, to))
  )
}

/**
 * One of CALL_WORDS starts at byte `at`, in any ASCII case: what CALL_WORDS_RE finds there (a
 * byte above 0x7f matches no letter of theirs under /i, as in `wordAt`). Compared byte by byte:
 * the gram table sends every `comp…` and `mode…` here, and decoding each was most of the cost.
 */
function callWordAt(bytes: Buffer, at: number, to: number): boolean {
  for (const w of CALL_WORD_BYTES) {
    if (at + w.length > to) continue
    let j = 0
    for (; j < w.length; j++) {
      let c = bytes[at + j]!
      if (c >= 65 && c <= 90) c += 32
      if (c !== w[j]) break
    }
    if (j === w.length) return true
  }
  return false
}

/** SERVICE_CODE_RE at byte `at`, where the gram table saw `code` in some case. */
function serviceCodeAt(b: Buffer, at: number, to: number): boolean {
  // code\\?["']?[ \t]*[:=][ \t]*\\?["']?\d{5}\b, taking each optional part greedily: no part
  // can match what the next one needs, so the regex never has to backtrack into it
  if (b[at] !== 99 || b[at + 1] !== 111 || b[at + 2] !== 100 || b[at + 3] !== 101) return false
  let i = at + 4
  if (i < to && b[i] === 92) i++
  if (i < to && (b[i] === 34 || b[i] === 39)) i++
  while (i < to && (b[i] === 32 || b[i] === 9)) i++
  if (i >= to || (b[i] !== 58 && b[i] !== 61)) return false
  i++
  while (i < to && (b[i] === 32 || b[i] === 9)) i++
  if (i < to && b[i] === 92) i++
  if (i < to && (b[i] === 34 || b[i] === 39)) i++
  for (const end = i + 5; i < end; i++) if (i >= to || b[i]! < 48 || b[i]! > 57) return false
  return i >= to || !isWordByte(b[i]!)
}

/** `\w` for `\b`: an ASCII letter, digit or `_`. */
function isWordByte(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95
}

/**
 * A word starts at byte `at`. Checked by the regex on the bytes read as Latin-1: ASCII stays
 * itself, and a byte above 0x7f becomes a character that neither matches a letter under `/i` nor
 * counts as a word character for `\b`, like the non-ASCII character it is part of.
 */
function wordAt(bytes: Buffer, at: number, to: number): boolean {
  WORD_AT.lastIndex = 0
  return WORD_AT.test(bytes.toString("latin1", at, Math.min(to, at + WORD_WINDOW)))
}
