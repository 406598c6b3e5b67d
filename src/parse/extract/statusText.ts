/**
 * Extractor: an HTTP status in prose (`Error code: 429`, `status=503`, `HTTP 429`, `错误码：403`,
 * `429 Too Many Requests`) or named only by its reason phrase. Shared with the pre-filter.
 */

const STATUS_CANDIDATE_RE = /(?<![\w.\/+\-]|\d[,:])([45]\d\d)(?![0-9_]|[.,:]\d)/g

const LEFT_SKIP = new Set([32, 9, 58, 61, 91, 93, 40, 34, 39, 44, 35, 62, 124, 0xff1a, 0x3010, 0x3011, 0xff08, 0x201c, 0x201d, 0x2018, 0x2019])

const LEFT_KEYWORDS = ["status", "satus", "code", "http", "error", "err", "failed", "failure", "exception", "response", "returned", "upstream",
  // Alamofire's `Response status code was unacceptable: 404.`
  "unacceptable", "错误", "失败", "状态", "码", "返回", "异常"]

const RIGHT_SKIP = new Set([32, 9, 58, 40, 45, 34])

const REASONS = [
  "bad request", "unauthorized", "authorization required", "payment required", "forbidden", "not found", "method not allowed",
  "not acceptable", "request timeout", "request time-out", "conflict", "gone", "payload too large",
  "request entity too large", "unsupported media type", "unprocessable", "too many requests",
  "internal server error", "internal error", "an internal error", "server error", "client error", "page not found", "not implemented", "bad gateway",
  "service unavailable", "service temporarily unavailable", "gateway timeout", "gateway time-out",
  "web server", "connection timed out", "origin is unreachable", "a timeout occurred", "overloaded",
  "ssl handshake failed", "invalid ssl certificate", "unavailable", "resource_exhausted",
  "resource exhausted", "deadline_exceeded", "deadline exceeded", "permission_denied", "unauthenticated", "status code",
  "provider returned error", "rate limit", "rate-limit",
  "error",
  // google-api-core's field violations after the code (`400 * GenerateContentRequest.contents: …`)
  "* "
]

const REASON_ONLY: ReadonlyArray<readonly [string, number]> = [
  ["too many requests", 429],
  ["service temporarily unavailable", 503],
  ["service unavailable", 503],
  ["bad gateway", 502],
  ["gateway time-out", 504],
  ["gateway timeout", 504],
  ["internal server error", 500],
  ["payment required", 402],
  ["request entity too large", 413],
  ["origin is unreachable", 523],
  // the statuses a client library names only in its own words (`Bad Request`, `Unauthorized`)
  ["unprocessable entity", 422],
  ["bad request", 400],
  ["unauthorized", 401],
  ["forbidden", 403]
]

/**
 * `UPSTREAM_503`, `HTTP_429` tokens; `Rate limit exceeded (429)`: a status in parentheses after
 * failure words; `got 429` (`request got 429, backing off`); an access log's `POST <url> 429`
 * without the HTTP version; `→ 503`; openai-node's `${status} ${message}` after an application's
 * failure words (`Error calling deepseek-chat: 402 Insufficient Balance`). The pre-filter asks the
 * same (`taggedStatusAt`).
 */
const TAGGED_STATUS_RE = /(?:(?:\b|_)(?:UPSTREAM|HTTP|STATUS)_|\bHTTP_STATUS\/|\b(?:exceeded|error|failed|denied|unavailable|refused|rejected|bad request|unauthori[sz]ed|forbidden|not found|too many requests|payment required|server error|bad gateway|gateway timeout|unprocessable entity) \(|\breason:[ \t]{0,3}\[|\| {1,3}(?=[45]\d\d {1,3}\|)|\bgot[ \t]{1,2}|\b(?:code|status) (?:was|is|of) |\b(?:failed|error|errored|invalid argument)\b[^\n]{0,80}?: (?=[45]\d\d(?:[ \t]*(?:\n|$)| [A-Z\u4e00-\u9fff]|\): ))|(?:出错|失败|错误|异常|エラー|오류|실패)[^\n]{0,40}?[:：] ?(?=[45]\d\d(?:[ \t]*(?:\n|$)| [A-Z\u4e00-\u9fff]))|(?:^|\n)[ \t]{0,4}(?=[45]\d\d \[[A-Za-z])|\b(?:GET|POST|PUT|PATCH|DELETE)[ \t]{1,4}(?:https?:\/\/|\/)[^\s"']{1,500}[ \t]{1,4}|(?:→|-{1,2}>|=>)[ \t]{1,3}|\[(?=[45]\d\d\]:))([45]\d\d)(?![\w.])|\b([45]\d\d), message=['"]/i

/**
 * google-api-core's `ServiceUnavailable: 503 The model is overloaded`: a CamelCase exception name,
 * the code, a sentence (case-sensitive: `initialised: 500 requests` is not one). Parse-side only.
 */
const CAMEL_CLASS_STATUS_RE = /(?<=\b[A-Z][a-z]{1,20}(?:[A-Z][a-z]{1,20}){1,4}): ([45]\d\d) (?=[A-Z])/

/**
 * TAGGED_STATUS_RE's forms as a lookbehind, tested at one number: the pre-filter asks it of each
 * status-like number instead of scanning the whole text with the regex (a log where many lines
 * carry a 4xx/5xx-looking count paid ~4% of its scan time for that scan).
 */
const TAGGED_AT_RE = (() => {
  const src = TAGGED_STATUS_RE.source
  const end = src.indexOf(")([45]\\d\\d)(?![\\w.])|")
  if (!src.startsWith("(?:") || end === -1) throw new Error("statusText: TAGGED_STATUS_RE changed shape")
  return new RegExp(`(?<=${src.slice(3, end)})[45]\\d\\d(?![\\w.])|[45]\\d\\d, message=['"]`, "iy")
})()

/** A status in one of TAGGED_STATUS_RE's forms at `i` (`got 429`, `status was 500`, `POST <url> 429`, `→ 503` …). */
export function taggedStatusAt(s: string, i: number): boolean {
  TAGGED_AT_RE.lastIndex = i
  return TAGGED_AT_RE.test(s)
}

const SOURCE_LINE_BEFORE_RE = /\w\.(?:go|py|js|mjs|cjs|ts|tsx|java|kt|rs|rb|php|c|cc|cpp|h|cs|swift|scala|ex|exs|lua):$/

/** The status shown in `s` and where; `index` -1: named only by its reason phrase. */
export function findStatus(s: string, skipFrom: number, skipTo: number): { status: number; index: number } | null {
  STATUS_CANDIDATE_RE.lastIndex = 0
  let m: RegExpExecArray | null
  let tries = 0
  while ((m = STATUS_CANDIDATE_RE.exec(s)) !== null && tries < 64) {
    tries++
    const i = m.index
    if (skipFrom !== -1 && i >= skipFrom && i < skipTo) {
      STATUS_CANDIDATE_RE.lastIndex = skipTo
      continue
    }
    // a source file's line number (`llama.go:459: error starting …`, `app.py:503:`) is no status
    if (s.charCodeAt(i - 1) === 58 && SOURCE_LINE_BEFORE_RE.test(s.slice(Math.max(0, i - 12), i))) continue
    // glued to the words after it (`status code 429This request …`): only a status keyword before it counts
    const glued = isLetter(s.charCodeAt(i + 3))
    const status = Number(m[1])
    if (leftKeyword(s, i)) return { status, index: i }
    // the weaker forms (a reason after it, a line's start) only for statuses HTTP has: `Document
    // 441: error …` is a document's number
    if (glued || !KNOWN_STATUS.has(status)) continue
    if (lineStartColonStatus(s, i)) {
      // Starlette's `500: <detail>` around the upstream's own error (`500: Error code: 400 - {…}`,
      // `500: … streaming the response: 429 Too Many Requests`): a status named later on the
      // same line is the call's, the first the application's
      const nl = s.indexOf("\n", i)
      return innerStatus(s, i + 5, nl === -1 ? s.length : nl, true) ?? { status, index: i }
    }
    if (lineStartStatus(s, i)) {
      // openai-node's `${status} ${message}` of a wrapper whose message names the upstream's status
      // (`400 An error occurred when calling Azure OpenAI: Server responded with status 429`)
      const nl = s.indexOf("\n", i)
      return innerStatus(s, i + 4, nl === -1 ? s.length : nl, false) ?? { status, index: i }
    }
    if (rightReason(s, i + 3)) return { status, index: i }
  }
  const tagged = TAGGED_STATUS_RE.exec(s.length > 8192 ? s.slice(0, 8192) : s)
  if (tagged !== null) {
    const n = tagged[1] ?? tagged[2]!
    return { status: Number(n), index: tagged.index + tagged[0].indexOf(n) }
  }
  const camel = CAMEL_CLASS_STATUS_RE.exec(s.length > 8192 ? s.slice(0, 8192) : s)
  if (camel !== null) return { status: Number(camel[1]), index: camel.index + 2 }
  const lower = (s.length > 8192 ? s.slice(0, 8192) : s).toLowerCase()
  for (const [phrase, status] of REASON_ONLY) {
    const at = lower.indexOf(phrase)
    if (at !== -1) return { status, index: -1 }
  }
  return null
}

const INNER_CANDIDATE_RE = new RegExp(STATUS_CANDIDATE_RE.source, "g")

/** A status in `s[from, to)` with a status word before it, or (`reason`) a reason phrase after it. */
function innerStatus(s: string, from: number, to: number, reason: boolean): { status: number; index: number } | null {
  const re = INNER_CANDIDATE_RE
  re.lastIndex = from
  let m: RegExpExecArray | null
  for (let n = 0; n < 8 && (m = re.exec(s)) !== null && m.index < to; n++) {
    if (leftKeyword(s, m.index) || (reason && rightReason(s, m.index + 3))) return { status: Number(m[1]), index: m.index }
  }
  return null
}

/**
 * The 4xx and 5xx statuses servers send: the registered ones, nginx's 444/494-499, Cloudflare's
 * 520-530, Anthropic's 529, AWS ELB's 460/463/561, 598/599.
 */
const KNOWN_STATUS: ReadonlySet<number> = new Set([
  ...range(400, 418), 421, 422, 423, 424, 425, 426, 428, 429, 431, 440, 444, 449, 450, 451, 460, 463, 494, 495, 496, 497, 498, 499,
  ...range(500, 511), ...range(520, 530), 561, 598, 599
])

function range(from: number, to: number): number[] {
  const out: number[] = []
  for (let n = from; n <= to; n++) out.push(n)
  return out
}

/**
 * A status word right before the number at `i` (`HTTP 503`, `"status": 503`, `错误码：403`).
 * `loose` (the pre-filter, which sees escaped JSON-in-JSON text) also skips backslashes.
 */
export function leftKeyword(s: string, i: number, loose = false): boolean {
  let j = i - 1
  let skipped = 0
  const maxSkip = loose ? 8 : 4
  while (j >= 0 && skipped < maxSkip && (LEFT_SKIP.has(s.charCodeAt(j)) || (loose && s.charCodeAt(j) === 92))) {
    j--
    skipped++
  }
  const end = j + 1
  if (end < 2 || !isWordOrCjk(s.charCodeAt(j)) || !isWordOrCjk(s.charCodeAt(j - 1))) return false
  // the word ends with a keyword (ASCII case-insensitively), compared in place: this runs for
  // every standalone 3-digit number of every record the pre-filter sees
  for (const k of LEFT_KEYWORDS) if (endsWithFolded(s, end, k)) return true
  return false
}

/** `s.slice(0, end)` ends with `lower` (all lower-case), ASCII letters compared case-insensitively. */
function endsWithFolded(s: string, end: number, lower: string): boolean {
  const n = lower.length
  if (end < n) return false
  for (let i = 1; i <= n; i++) {
    const c = s.charCodeAt(end - i)
    const k = lower.charCodeAt(n - i)
    if (c !== k && !(c >= 65 && c <= 90 && (c | 32) === k)) return false
  }
  return true
}

export function rightReason(s: string, k: number): boolean {
  const digitsAt = k - 3
  let skipped = 0
  while (k < s.length && skipped < 3 && RIGHT_SKIP.has(s.charCodeAt(k))) {
    k++
    skipped++
  }
  if (s.charCodeAt(k) === 123) return true
  // a column of a pipe-separated access log (gin's `[GIN] … | 500 |   1.2s | …`)
  if (s.charCodeAt(k) === 124 && skipped > 0) {
    let j = digitsAt - 1
    while (j >= 0 && (s.charCodeAt(j) === 32 || s.charCodeAt(j) === 9)) j--
    if (j < digitsAt - 1 && s.charCodeAt(j) === 124) return true
  }
  let tail = s.slice(k, k + 34).toLowerCase()
  // a reason hard-wrapped by a terminal (`400 Provider\n   returned error`)
  if (tail.indexOf("\n") !== -1) tail = s.slice(k, k + 64).replace(/\s+/g, " ").toLowerCase()
  for (const r of REASONS) if (tail.startsWith(r)) return true
  return false
}

/** Node SDK style: the record (or a line) starts with `429 Rate limit ...`. */
export function lineStartStatus(s: string, i: number): boolean {
  let j = i - 1
  while (j >= 0 && (s.charCodeAt(j) === 32 || s.charCodeAt(j) === 9)) j--
  // at a line's start, or a quoted string's (`error: "429 You exceeded your current quota"`)
  const before = j < 0 ? 10 : s.charCodeAt(j)
  if (before !== 10 && before !== 34 && before !== 39) return false
  // `500. unmarshal_response_body_failed …` (an app's alert: the status, a full stop, the relay's message)
  if (s.charCodeAt(i + 3) === 46 && s.charCodeAt(i + 4) === 32) i++
  else if (s.charCodeAt(i + 3) !== 32) return false
  // `429 Rate limit ...`, `429 "Too many tokens ..."` (a body that is a bare JSON string), and a
  // relay's Chinese message (`429 当前分组上游负载已饱和`, `401 无效的令牌`: openai-node's `${status} ${message}`)
  const q = s.charCodeAt(i + 4)
  // a relay's request id as the whole message (`Error: 401 (request id: 2024…)`, one-api behind openai-node)
  if (q === 40 && s.startsWith("(request id: ", i + 4)) return true
  const c = q === 34 ? s.charCodeAt(i + 5) : q
  if ((c >= 65 && c <= 90) || (c >= 0x4e00 && c <= 0x9fff)) return true
  // `503 - "{\"error\": …}"`, `429 - {…}`: openai-python's `Error code: 503 - {…}` without its label
  if (q === 45 && s.charCodeAt(i + 5) === 32 && (s.charCodeAt(i + 6) === 34 || s.charCodeAt(i + 6) === 123)) return true
  // a message in lower case (`503 server is overloaded.`) when it says something failed
  return c >= 97 && c <= 122 && LOWER_CASE_FAILURE_RE.test(s.slice(i + 4, i + 160))
}

/** A lower-case message after a line-start status that says something failed. */
const LOWER_CASE_FAILURE_RE =
  /^[a-z][^\n]{0,120}?\b(?:overloaded|error|failed|failure|invalid|incorrect|expired|exceeded|exhausted|limit(?:ed)?|denied|rejected|refused|unavailable|not found|not allowed|not supported|unsupported|unauthori[sz]ed|forbidden|timed? ?out|too many|insufficient|busy|not exist)\b/

/**
 * A UI's toast or an app's line that starts with the status and a colon, then a capitalised
 * message (Open WebUI's `403: Open WebUI: Server Connection Error`, `500: Internal Error`).
 */
export function lineStartColonStatus(s: string, i: number): boolean {
  if (s.charCodeAt(i + 3) !== 58 || s.charCodeAt(i + 4) !== 32) return false
  let j = i - 1
  while (j >= 0 && (s.charCodeAt(j) === 32 || s.charCodeAt(j) === 9)) j--
  // at a line's start, or a sentence's (`Error: null. 413: Maximum content size limit exceeded`)
  if (j >= 0 && s.charCodeAt(j) !== 10 && !(s.charCodeAt(j) === 46 && j < i - 1)) return false
  const c = s.charCodeAt(i + 5)
  // a capitalised message, or a relay's Chinese one (`500: 当前API请求过多，请稍后重试。`)
  return (c >= 65 && c <= 90) || (c >= 0x4e00 && c <= 0x9fff)
}

function isLetter(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122)
}

function isWordOrCjk(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || (c >= 0x4e00 && c <= 0x9fff)
}
