/**
 * The pre-filter's failure words (`hasFailureSignal`), in two forms that agree exactly:
 * - `SIGNAL_WORDS_RE`, a regex for a text;
 * - `hasSignalWordInBytes`, the same test on the UTF-8 bytes of one line, for the tailer's scanner.
 *   It sees every byte of a tailed log, before the bytes are decoded, so it is a loop over a
 *   Uint8Array with one table lookup per byte (GRAMS) and a closer look only where the last four
 *   bytes can start a word: about twice as fast as the regex over the decoded line, and as fast
 *   whatever the shape of the strings it has seen before (a loop over string characters is not:
 *   V8 slows it down for good once it meets a slice of a two-byte string).
 */

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
  "hang up", "proxy", "payment required", "again"
]

const wordOf = (w: (typeof SIGNAL_WORDS)[number]): string => (typeof w === "string" ? w : w[0])
const alternative = (w: (typeof SIGNAL_WORDS)[number]): string => (typeof w === "string" ? w : w[0] + w[1])

/** One of the words, anywhere (the words are letters, spaces, `-` and `_`: nothing to escape). */
export const SIGNAL_WORDS_RE = new RegExp(SIGNAL_WORDS.map(alternative).join("|"), "i")
/** One of the words, starting exactly at `lastIndex`. */
const WORD_AT = new RegExp(SIGNAL_WORDS_RE.source, "iy")
/** Enough characters from a word's start to decide (the longest word and `ions` after `reject`). */
const WORD_WINDOW = Math.max(...SIGNAL_WORDS.map((w) => alternative(w).length)) + 8

/** Words whose first four letters are common in ordinary logs (`timestamp`): keyed on the next four. */
const COMMON_STARTS = new Set(["time"])

/**
 * The table, indexed by the last four bytes folded to 5 bits each (`b & 31`: both cases of an
 * ASCII letter fold to the same value; other bytes collide with letters, which only costs a
 * closer look). An entry says a word may start 3 bytes back (WORD) or 4 bytes back (WORD_BEHIND).
 */
const WORD = 1
const WORD_BEHIND = 2
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
      // any fourth byte, or none (the line's end: see hasSignalWordInBytes)
      for (let b = 0; b < 32; b++) t[(gramOf(w + "a", 0) & ~31) | b] |= WORD
    } else if (w.length > 4 && COMMON_STARTS.has(w.slice(0, 4))) t[gramOf(w, 1)] |= WORD_BEHIND
    else t[gramOf(w, 0)] |= WORD
  }
  return t
})()

/**
 * `SIGNAL_WORDS_RE.test(bytes.toString("utf8", from, to))`, without decoding: one of the words
 * occurs in the UTF-8 bytes `[from, to)`. A word is ASCII, and a byte of a multi-byte character is
 * never ASCII (nor is U+FFFD, what an invalid sequence decodes to), so the words are found at the
 * same places in the bytes as in the text.
 */
export function hasSignalWordInBytes(bytes: Buffer, from: number, to: number): boolean {
  let g = 0
  let i = from
  while (i < to) {
    // the hot loop, kept free of calls
    let f = 0
    for (; i < to; i++) {
      g = ((g << 5) | (bytes[i]! & 31)) & GRAM_MASK
      f = GRAMS[g]!
      if (f !== 0) break
    }
    if (i === to) break
    if ((f & WORD) !== 0 && i - 3 >= from && wordAt(bytes, i - 3, to)) return true
    if ((f & WORD_BEHIND) !== 0 && i - 4 >= from && wordAt(bytes, i - 4, to)) return true
    i++
  }
  // a three-letter word at the very end
  return to - from >= 3 && (GRAMS[(g << 5) & GRAM_MASK]! & WORD) !== 0 && wordAt(bytes, to - 3, to)
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
