/**
 * The pre-filter: a cheap test run on every record before any other work. Most log lines stop
 * here; false positives only cost a full parse, false negatives lose failures, so it is generous.
 */
import { LineSignal, SERVICE_CODE_RE, SIGNAL_WORDS_RE } from "./lineSignals.js"
import { isAlnum, isDigit } from "./draft.js"
import { leftKeyword, lineStartColonStatus, lineStartStatus, rightReason, taggedStatusAt } from "./extract/statusText.js"

/** The failure words in Chinese: their own test, since a non-ASCII class under /i is slow. */
const SIGNAL_CJK_RE = /[错失异限超繁余实存拒额]|非法|认证|饱和|不可用|无可用|无效|欠费|过期|用尽|权限|未授权/

const STATUS_DIGITS_RE = /\b[45]\d\d\b/g

/**
 * Cheap test run before any other work: a 4xx/5xx number where the parser would read a status
 * (after `status`, `code`, `HTTP`, `error`..., before a reason phrase or a body, at a line's
 * start, after `HTTP/1.1`) or a failure word. A number in prose (`heap used 456 MB`, the
 * milliseconds of `10:00:00,450`) is not a signal: the full parse would find no status there.
 * False positives only cost a full parse; false negatives lose failures, so it is generous.
 * `signals`: the LineSignal flags of the record's lines, when the caller has them (the tailer's
 * scanner finds the words and the service's code in the bytes: `lineSignals`).
 */
export function hasFailureSignal(text: string, signals?: number): boolean {
  if (signals === undefined) {
    return hasStatusSignal(text) || SIGNAL_WORDS_RE.test(text) || SIGNAL_CJK_RE.test(text) || (text.indexOf("code") !== -1 && SERVICE_CODE_RE.test(text))
  }
  if ((signals & (LineSignal.Word | LineSignal.ServiceCode)) !== 0) return true
  return hasStatusSignal(text) || ((signals & LineSignal.NonAscii) !== 0 && SIGNAL_CJK_RE.test(text))
}

/** A 4xx/5xx number where the parser would read a status. */
function hasStatusSignal(text: string): boolean {
  STATUS_DIGITS_RE.lastIndex = 0
  while (STATUS_DIGITS_RE.test(text)) {
    const i = STATUS_DIGITS_RE.lastIndex - 3
    if (!isStatusLikeNumber(text, i)) continue
    if (leftKeyword(text, i, true) || rightReason(text, i + 3) || lineStartStatus(text, i) || lineStartColonStatus(text, i) || afterHttpVersion(text, i) || afterClientVerb(text, i)) {
      return true
    }
    // the parser's tagged forms (`got 429`, `status was 500`, `POST <url> 429`, `→ 503` …): its
    // own regex, as a lookbehind at this number
    if (i < 8192 && taggedStatusAt(text, i)) return true
  }
  return false
}

/**
 * The 3 digits at `i` stand alone (not part of a longer number, a decimal, an id or a version)
 * and, when they are a JSON value, belong to a key that can hold a status or code.
 */
function isStatusLikeNumber(text: string, i: number): boolean {
  const p = text.charCodeAt(i - 1)
  const n = text.charCodeAt(i + 3)
  if (isAlnum(p) || p === 46 /* . */ || p === 95 /* _ */ || isAlnum(n) || n === 95) return false
  if ((n === 46 || n === 44 || n === 58) && isDigit(text.charCodeAt(i + 4))) return false
  // A JSON number value (`"promptTokens":450`): only status / code keys count.
  let k = i - 1
  if (k >= 0 && text.charCodeAt(k) === 32) k--
  if (text.charCodeAt(k) === 58 /* : */ && text.charCodeAt(k - 1) === 34 /* " */) {
    const open = text.lastIndexOf('"', k - 2)
    if (open === -1 || k - 1 - open > 40) return true
    const key = text.slice(open + 1, k - 1).toLowerCase()
    return key.indexOf("status") !== -1 || key.indexOf("code") !== -1
  }
  return true
}

/** `HTTP/1.1 503`, `HTTP/2 429`, `HTTP/1.1" 404` (an access log): what the status-line rules read. */
function afterHttpVersion(text: string, i: number): boolean {
  let j = i - 1
  while (j >= 0 && (text.charCodeAt(j) === 32 || text.charCodeAt(j) === 9)) j--
  if (j === i - 1) return false
  if (text.charCodeAt(j) === 34) j--
  if (!isDigit(text.charCodeAt(j))) return false
  if (text.charCodeAt(j - 1) === 46 /* . */) j -= 2
  return j >= 5 && text.startsWith("HTTP/", j - 5)
}

/** The word that ends at `end` (ASCII letters), lower-cased; "" when there is none. */
function wordBefore(text: string, end: number): string {
  let j = end
  while (j > 0 && j > end - 12 && isAsciiLetter(text.charCodeAt(j - 1))) j--
  return j === end || isAlnum(text.charCodeAt(j - 1)) ? "" : text.slice(j, end).toLowerCase()
}

const isAsciiLetter = (c: number): boolean => (c | 32) >= 97 && (c | 32) <= 122

/** `received 503`, `returns 429`: a client's verb before the number (the pre-filter is generous). */
function afterClientVerb(text: string, i: number): boolean {
  let sp = i
  while (sp > 0 && i - sp < 4 && (text.charCodeAt(sp - 1) === 32 || text.charCodeAt(sp - 1) === 9)) sp--
  if (sp === i) return false
  const w = wordBefore(text, sp)
  return w === "received" || w === "returns" || w === "returning"
}
