/**
 * The pre-filter: a cheap test run on every record before any other work. Most log lines stop
 * here; false positives only cost a full parse, false negatives lose failures, so it is generous.
 */
import { LineSignal, SERVICE_CODE_RE, SIGNAL_WORDS_RE } from "./lineSignals.js"
import { isAlnum, isDigit } from "./draft.js"
import { leftKeyword, lineStartStatus, rightReason } from "./extract/statusText.js"

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
    if (
      isStatusLikeNumber(text, i) &&
      (leftKeyword(text, i, true) || rightReason(text, i + 3) || lineStartStatus(text, i) || afterHttpVersion(text, i) || leftCue(text, i) || afterRequestTarget(text, i) || lineStartColon(text, i))
    ) {
      return true
    }
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

/** The start of the spaces (1 to 4) before `i`, or -1. */
function spacesBefore(text: string, i: number): number {
  let j = i
  while (j > 0 && i - j < 4 && (text.charCodeAt(j - 1) === 32 || text.charCodeAt(j - 1) === 9)) j--
  return j === i ? -1 : j
}

/** `got 429`, `received 503`, `status was 500`, `code of 404`, `→ 503`: how clients and wrappers say it. */
function leftCue(text: string, i: number): boolean {
  const sp = spacesBefore(text, i)
  if (sp === -1) return false
  const arrow = text.charCodeAt(sp - 1)
  if (arrow === 0x2192 /* → */ || ((arrow === 62 /* > */ && (text.charCodeAt(sp - 2) === 45 || text.charCodeAt(sp - 2) === 61)) /* -> => */)) return true
  const w = wordBefore(text, sp)
  if (w === "got" || w === "received" || w === "returns" || w === "returning") return true
  if (w !== "was" && w !== "is" && w !== "of") return false
  const sp2 = spacesBefore(text, sp - w.length)
  if (sp2 === -1) return false
  const w2 = wordBefore(text, sp2)
  return w2 === "status" || w2 === "code"
}

const METHODS = new Set(["get", "post", "put", "patch", "delete"])

/** An access log without the HTTP version: `POST https://host/v1/chat/completions 429`, `GET /v1/models 401`. */
function afterRequestTarget(text: string, i: number): boolean {
  const sp = spacesBefore(text, i)
  if (sp === -1) return false
  let j = sp
  while (j > 0 && sp - j <= 500) {
    const c = text.charCodeAt(j - 1)
    if (c === 32 || c === 9 || c === 34 || c === 39) break
    j--
  }
  const target = text.charCodeAt(j)
  if (j === sp || (target !== 47 /* / */ && !text.startsWith("http", j))) return false
  const sp2 = spacesBefore(text, j)
  return sp2 !== -1 && METHODS.has(wordBefore(text, sp2))
}

/** A line that starts with the status, a colon and a capitalised message (a UI's toast: `403: Open WebUI: Server Connection Error`). */
function lineStartColon(text: string, i: number): boolean {
  if (i > 0 && text.charCodeAt(i - 1) !== 10) return false
  if (text.charCodeAt(i + 3) !== 58 || text.charCodeAt(i + 4) !== 32) return false
  const c = text.charCodeAt(i + 5)
  return c >= 65 && c <= 90
}
