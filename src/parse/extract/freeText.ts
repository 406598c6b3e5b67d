/**
 * Extractor: free text — the dispatcher for a text record (a JSON line goes to jsonLog, an
 * embedded body to errorBody, then status lines, HTML, statuses in prose, exception classes,
 * logfmt, hints) and the message derived from the line when nothing gave one.
 */
import { firstNonSpace, parseLoose, scanFields } from "../loose-json.js"
import { type Draft, MAX_DEPTH, isRecord, lineAround, setBodyStatus, setClass, setCode, setErrorType, setMessage, setStatus } from "../draft.js"
import { findBody, readBody } from "./errorBody.js"
import { notePaths, readHints } from "./hints.js"
import { readHtml } from "./html.js"
import { readStatusLine } from "./httpDump.js"
import { readLogObject } from "./jsonLog.js"
import { KV_MESSAGE_RE, readExplicitCodes, readLogfmt, readProviderLabel } from "./logfmt.js"
import { REPEATED_CLASS_RE, findClass, findGrpcStatus, modulePrefix } from "./sdkException.js"
import { findStatus } from "./statusText.js"
import { readClientText } from "./clientText.js"

export function readText(s: string, d: Draft, depth: number): void {
  if (depth > MAX_DEPTH) return
  if (s.indexOf("' +\n") !== -1) s = joinInspectedStrings(s)
  const first = firstNonSpace(s)
  if (first === -1) return
  if (s.charCodeAt(first) === 123 && depth < MAX_DEPTH) {
    const parsed = parseJsonText(s)
    const v = parsed?.value
    if (isRecord(v) && Object.keys(v).length > 0) {
      readLogObject(v, d, depth + 1)
      // a line of text after the object (`HTTP_CODE:401` under a pasted body) is read too; another
      // JSON log line after it only while nothing has shown a failure (an app's INFO line, then
      // its `"status":429` line, pasted together)
      let rest = parsed!.end < s.length ? firstNonSpace(s, parsed!.end) : -1
      for (let n = 0; rest !== -1 && s.charCodeAt(rest) === 123 && n < 8 && d.status === null && !d.hasBody; n++) {
        const next = parseJsonText(s.slice(rest))
        if (next === undefined || !isRecord(next.value)) break
        readLogObject(next.value, d, depth + 1)
        const end = rest + next.end
        rest = end < s.length ? firstNonSpace(s, end) : -1
      }
      if (rest !== -1 && s.charCodeAt(rest) !== 123) readText(s.slice(rest), d, depth + 1)
      return
    }
  }

  // a log line's prefix (time, level, logger) before what the extractors read at a line's start:
  // a JSON object (`2026-… ERROR {"level":…}`) or an SDK's leading status (`… ERROR 400 An error
  // occurred …`): the rest is read as the record it would be without the prefix
  if (depth === 0 && first === 0) {
    // a syslog date (`Nov 25 10:00:00 `, what a syslog header leaves: unwrap.ts) before the rest
    const sy = s.charCodeAt(0) >= 65 && s.charCodeAt(0) <= 90 ? SYSLOG_DATE_RE.exec(s) : null
    const from = sy === null ? 0 : sy[0].length
    const p = LOG_PREFIX_RE.exec(from === 0 ? s : s.slice(from))
    const at = from + (p === null ? 0 : p[0].length)
    const ch = s.charCodeAt(at)
    // a digit, or `Error 429: …`'s capital E
    const digitFirst = (ch >= 48 && ch <= 57) || ch === 69
    if (at > 0 && at < s.length && (ch === 123 || (digitFirst && (LEADING_STATUS_RE.test(s.slice(at, at + 12)) || LEADING_SERVICE_CODE_RE.test(s.slice(at, at + 12)))))) {
      d.timeTexts.push(s)
      // the same depth: the prefix is no nesting (the rest is shorter, so this ends)
      readText(s.slice(at), d, depth)
      return
    }
  }
  if (d.timeTexts.length < 4) d.timeTexts.push(s)
  // a key-value log's quoted error (logrus `error="…"`, slog `err="…"`, strconv.Quote'd): the
  // failure's own text, read before the log's `msg="…"` can be taken for its message
  if (depth < MAX_DEPTH && (s.indexOf(' error="') !== -1 || s.indexOf(' err="') !== -1)) {
    const v = quotedErrorValue(s)
    if (v !== null) readText(v, d, depth + 1)
  }
  if (depth < MAX_DEPTH && (s.startsWith('msg="') || s.indexOf(' msg="') !== -1)) {
    const v = escapedMsgValue(s)
    if (v !== null) readText(v, d, depth + 1)
  }
  const hadMessage = d.message !== null
  const outer = d.from

  // Embedded body: JSON, a Python dict, a JS object dump, or a JSON string holding one.
  const body = findBody(s)
  if (body !== null) {
    d.hasBody = readBody(body.value, d, depth + 1) || d.hasBody
  } else if (s.indexOf("message") !== -1 || s.indexOf("code") !== -1) {
    d.from = "loose-fields"
    const f = scanFields(s)
    if (f.message !== null) setMessage(d, f.message)
    if (f.code !== null) setCode(d, f.code)
    if (f.type !== null) setErrorType(d, f.type)
    if (f.status !== null) setBodyStatus(d, f.status)
    if (f.message !== null && f.code !== null) d.hasBody = true
  }

  // An HTTP response dump: status line, headers, blank line, body.
  const accessStatus = readStatusLine(s, d, body === null)

  // HTML error pages: the message is the page title.
  readHtml(s, d)

  let statusAt = -1
  if (d.status === null) {
    const found = findStatus(s, body === null ? -1 : body.start, body === null ? -1 : body.end)
    if (found === null) {
      // no status
    } else if (found.index === -1) {
      if (d.phraseStatus === null) d.phraseStatus = found.status
    } else {
      d.from = "status-text"
      setStatus(d, found.status, lineAround(s, found.index))
      statusAt = found.index
    }
  }
  if (d.status === null && accessStatus !== null) {
    d.from = "http-dump"
    setStatus(d, accessStatus.status, accessStatus.text)
  }
  // a Java exception chain: the last `Caused by:` is the root cause, the class that says what failed
  if (s.indexOf("\nCaused by: ") !== -1 && d.errorClass === null) {
    const root = lastCausedBy(s)
    if (root !== null) {
      d.from = "sdk-exception"
      setClass(d, root.name)
      if (d.message === null && root.message !== "" && root.message !== "{") setMessage(d, root.message)
    }
  }
  const cls = findClass(s)
  if (cls !== null) {
    d.from = "sdk-exception"
    setClass(d, cls.name)
    const mod = modulePrefix(s, cls.end, cls.name)
    if (mod !== "" && d.providerHints.length < 8) d.providerHints.push(mod + cls.name)
    // google-api-core's `ServiceUnavailable: 503 failed to connect …`: its `__str__` always starts
    // with the status, whatever case the message starts in
    if (d.status === null && mod.endsWith("api_core.exceptions.") && s.charCodeAt(cls.end) === 58) {
      const m = API_CORE_STATUS_RE.exec(s.slice(cls.end, cls.end + 8))
      if (m !== null) {
        d.from = "sdk-exception"
        setStatus(d, Number(m[1]), s.slice(Math.max(0, cls.end - cls.name.length), cls.end + 60))
        if (d.message === null) {
          const rest = restOfLine(s, cls.end + m[0].length).trim()
          if (rest !== "") setMessage(d, rest)
        }
      }
    }
  }
  if (d.errorType === null) {
    const grpc = findGrpcStatus(s)
    if (grpc !== null) {
      d.from = "sdk-exception"
      setErrorType(d, grpc)
    }
  }
  readClientText(s, d)
  d.from = "error-code-text"
  readExplicitCodes(s, d)
  d.from = "logfmt"
  readLogfmt(s, d)
  readProviderLabel(s, d)
  d.from = "free-text"
  if (d.message === null) {
    const kv = KV_MESSAGE_RE.exec(s)
    if (kv !== null) setMessage(d, kv[1] ?? kv[2] ?? kv[3])
  }
  readHints(s, d)
  notePaths(s, d)
  if (d.limitDetail === null && s.indexOf("quota") !== -1) {
    // the QuotaFailure printed other than as JSON (a Go map, a YAML dump): `quotaId:Generate…`
    const q = QUOTA_ID_RE.exec(s.length > 16384 ? s.slice(0, 16384) : s)
    if (q !== null) d.limitDetail = q[1]
  }

  if (d.message === null) {
    if (cls !== null && s.charCodeAt(cls.end) === 58) d.from = "sdk-exception"
    setMessage(d, deriveMessage(s, cls, statusAt))
  }
  if (!hadMessage && d.message !== null) d.messageHinted = true
  d.from = outer
}

const API_CORE_STATUS_RE = /^: ([45]\d\d) /
const PHP_FILE_SUFFIX_RE = / in \/?[^\s]{1,400}\.php(?::\d{1,6}| on line \d{1,6})$/
/** JavaScript's default error name before the message (`Error: Connection error.`). */
const JS_ERROR_NAME_RE = /^Error: (?=\S)/
const OLLAMA_STATUS_SUFFIX_RE = / \(status code: [45]\d\d\)$/

/** `Caused by: dev.langchain4j.exception.RateLimitException: message` lines of a Java stack trace. */
const CAUSED_BY_RE = /\nCaused by: (?:[a-z_][\w$]{0,60}\.){0,10}([A-Z][\w$]{1,80}(?:Error|Exception))(?::[ \t]?([^\n]{0,2000}))?/g

function lastCausedBy(s: string): { name: string; message: string } | null {
  CAUSED_BY_RE.lastIndex = 0
  let last: RegExpExecArray | null = null
  let m: RegExpExecArray | null
  let n = 0
  const t = s.length > 65536 ? s.slice(0, 65536) : s
  while ((m = CAUSED_BY_RE.exec(t)) !== null && n++ < 32) last = m
  return last === null ? null : { name: last[1], message: (last[2] ?? "").trim() }
}

/** Google's QuotaFailure violation, however printed: `quotaId:GenerateRequestsPerDay…`, `"quotaId": "…"`. */
const QUOTA_ID_RE = /\bquota(?:Id|_id)\\?["']?[ \t]{0,2}[:=][ \t]{0,2}\\?["']?([A-Za-z][\w.\/-]{3,160})/

/** The JSON (or loosely JSON) value `s` starts with, and where it ends. */
function parseJsonText(s: string): { readonly value: unknown; readonly end: number } | undefined {
  try {
    return { value: JSON.parse(s) as unknown, end: s.length }
  } catch {
    const r = parseLoose(s, firstNonSpace(s))
    // broken early (a string holding unescaped quotes and newlines, a traceback pasted into a
    // JSON-looking record): not an object to read, the record is read as text
    if (r === undefined || (!r.complete && s.length - r.end > 64 && r.end < s.length * 0.6)) return undefined
    return { value: r.value, end: r.end }
  }
}

/**
 * Node's util.inspect of a long string: `'{\n' +` / `    '  "error": {\n' +` pieces on successive
 * lines. Joined back into the string they print (its `\n` escapes as line breaks), so the body
 * inside is read like any other.
 */
const INSPECT_PIECE_NL_RE = /\\n' \+\n[ \t]{0,40}'/g
const INSPECT_PIECE_RE = /' \+\n[ \t]{0,40}'/g

function joinInspectedStrings(s: string): string {
  return s.replace(INSPECT_PIECE_NL_RE, "\n").replace(INSPECT_PIECE_RE, "")
}

/**
 * Timestamp, level, `[tags]` and a Python-style `logger.name - ` at the start of a log line. A
 * bracketed sentence (`[模型不存在，请检查模型代码。]`) is the message, not a tag.
 */
const LOG_PREFIX_RE =
  /^[\s|]*(?:\[?\d{4}[-/.]\d\d[-/.]\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d{1,9})?(?:Z|[+-]\d\d:?\d\d)?\]?|\[?\d\d:\d\d:\d\d(?:[.,]\d{1,9})?\]?)?[\s|:-]*(?:\[?(?:ERROR|ERR|WARNING|WARN|INFO|DEBUG|CRITICAL|FATAL|TRACE)\]?(?=[\s:|[-])|\[(?:error|warning|warn|info|debug)\]|(?:error|warning|warn|info|debug):)?[\s|:-]*(?:\[[^\]\n，。]{1,60}\][ \t]*){0,3}(?:[\w.$]{1,80}[ \t]+-[ \t]+(?![\s{]))?/

/**
 * The status an SDK writes before the message: openai-node's `${status} ${message}`, the Stainless
 * Java SDKs' `429: message` (openai/openai-java:…/errors/RateLimitException.kt), Go's `Error 429: `.
 */
const LEADING_STATUS_RE = /^(?:Error )?[45]\d\d:?[ \t]+(?=[A-Z\u4e00-\u9fff])/

const SYSLOG_DATE_RE = /^[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d /

/** A provider's numeric code leading the message (`3040: Capacity temporarily exceeded`, `1002, trigger rate limit`). */
const LEADING_SERVICE_CODE_RE = /^\d{4,6}[:,][ \t](?=[A-Za-z\u4e00-\u9fff])/

/** `Error: ` / `google.api_core.exceptions.ResourceExhausted: ` before a leading status (`Error: 429 You exceeded …`). */
const CLASS_BEFORE_STATUS_RE = /^(?:[A-Za-z_]\w{0,60}\.){0,8}[A-Za-z_]\w{0,60}:[ \t]+(?=(?:Error )?[45]\d\d\b)/

const PY_RAISE_LINE_RE = /^[ \t]{2,16}raise [A-Za-z_][\w.]{0,80}\(/m

/** The message line of a labelled error report: `错误信息: …`, `Error message: …`. */
const MESSAGE_LABEL_LINE_RE = /^[ \t]{0,8}(?:错误信息|错误详情|报错信息|Error message|Error Message)[ \t]{0,2}[:：][ \t]{0,2}(\S[^\n]{0,2000})$/m

/** A line that only labels the status: `Status Code: 429`, `HTTP status: 503`. */
const STATUS_LABEL_LINE_RE = /^(?:HTTP[ \t])?status(?:[ \t]code)?[ \t]{0,2}:?[ \t]{0,2}[45]\d\d$/i

function deriveMessage(s: string, cls: { end: number } | null, statusAt: number): string | null {
  // a Python traceback (or its tail from a `raise` line): the exception raised last is the
  // failure, not the first class named (`KeyError: 'result'` before `RuntimeError: Access token
  // invalid`, in chained exceptions)
  if (s.indexOf("\n") !== -1 && (s.indexOf("Traceback (most recent call last)") !== -1 || PY_RAISE_LINE_RE.test(s))) {
    const last = lastExceptionMessage(s)
    if (last !== null) return last
  }
  // an error report that labels its message line (`错误信息: …`, `Error message: …`), as UIs print
  // name / message / stack
  if (s.indexOf("\n") !== -1 && (s.indexOf("信息") !== -1 || s.indexOf("essage:") !== -1)) {
    const labelled = MESSAGE_LABEL_LINE_RE.exec(s)
    if (labelled !== null) return labelled[1].trim()
  }
  // Node's inspect of an error whose name is not its class's: `RetryError [AI_RetryError]: Failed after …`
  if (cls !== null && s.startsWith(" [", cls.end)) {
    const close = s.indexOf("]: ", cls.end + 2)
    if (close !== -1 && close - cls.end < 64 && s.lastIndexOf("\n", close) < cls.end) cls = { end: close + 1 }
  }
  if (cls !== null && s.charCodeAt(cls.end) === 58 /* : */) {
    let rest = restOfLine(s, cls.end + 1).trim()
    // `RateLimitError: litellm.RateLimitError: Rate limit ...`: drop the repeated class names.
    for (let n = 0; n < 3; n++) {
      const again = REPEATED_CLASS_RE.exec(rest)
      if (again === null) break
      rest = rest.slice(again[0].length)
    }
    rest = rest.replace(LEADING_STATUS_RE, "")
    // PHP's `Class: message in /path/File.php:131`, ollama-python's `message (status code: 404)`
    // (ollama/ollama-python:ollama/_types.py ResponseError.__str__): the place and the status are not the message
    if (rest.indexOf(".php") !== -1) rest = rest.replace(PHP_FILE_SUFFIX_RE, "")
    if (rest.endsWith(")") && rest.indexOf(" (status code: ") !== -1) rest = rest.replace(OLLAMA_STATUS_SUFFIX_RE, "")
    if (rest !== "") {
      const nl = s.indexOf("\n", cls.end)
      return nl === -1 ? rest : rest + wrappedTail(s, rest, nl + 1)
    }
  } else if (cls !== null && s.indexOf("\n") !== -1) {
    // a traceback: the message is on its last `module.Class: message` line
    const last = lastExceptionMessage(s)
    if (last !== null) return last
  }
  if (statusAt >= 0) {
    let k = statusAt + 3
    let skipped = 0
    while (k < s.length && skipped < 4 && (s.charCodeAt(k) === 32 || s.charCodeAt(k) === 58 || s.charCodeAt(k) === 44)) {
      k++
      skipped++
    }
    const q = s.charCodeAt(k)
    if (q === 34 || q === 39) {
      const close = s.indexOf(s[k], k + 1)
      if (close !== -1 && close - k < 2000) return s.slice(k + 1, close)
    }
    // The line that carries the status (`Error: Server error: 500 Internal Server Error`).
    const start = s.lastIndexOf("\n", statusAt) + 1
    const line = restOfLine(s, start).replace(LOG_PREFIX_RE, "").trim().replace(CLASS_BEFORE_STATUS_RE, "").replace(LEADING_STATUS_RE, "")
    // a label line (`Status Code: 429` of an error-report template) says nothing more: the
    // message is where the same status is shown again with words (`429 余额不足…`)
    if (STATUS_LABEL_LINE_RE.test(line)) {
      const after = start + restOfLine(s, start).length + 1
      const again = after < s.length ? s.indexOf("\n" + s.slice(statusAt, statusAt + 3) + " ", after - 1) : -1
      if (again !== -1) {
        const other = restOfLine(s, again + 1).trim().replace(LEADING_STATUS_RE, "")
        if (other !== "") return other
      }
    }
    if (line !== "") return line + wrappedTail(s, line, start + restOfLine(s, start).length + 1)
  }

  // the first line that says something failed (a logger header, an INFO line or the command
  // typed above it is not the message), else the first line that is not a title
  let from = 0
  let first: string | null = null
  for (let lines = 0; lines < 16 && from < s.length; lines++) {
    const nl = s.indexOf("\n", from)
    const line = s.slice(from, nl === -1 ? s.length : nl).replace(LOG_PREFIX_RE, "").trim().replace(JS_ERROR_NAME_RE, "")
    // a title line (`Error`, `错误`) above the message, as dialogs and UIs print it
    if (line !== "" && (nl === -1 || !TITLE_LINE_RE.test(line))) {
      const whole = nl === -1 ? line : line + wrappedTail(s, line, nl + 1)
      if (nl === -1 && first === null) return whole
      if (FAILURE_LINE_RE.test(line)) return whole
      first ??= whole
    }
    if (nl === -1) break
    from = nl + 1
  }
  return first
}

/** A line that says something failed: the message line of a multi-line record. */
export const FAILURE_LINE_RE =
  /\b(?:error|err|fail(?:ed|ure|s)?|exception|denied|invalid|refused|timed? ?out|exceeded|limit(?:ed)?|unauthori[sz]ed|forbidden|unavailable|overloaded|not found|expired|insufficient)\b|错误|失败|异常|超时|拒绝|不足|限流|上限|无效|非法/i

/** `openai.OpenAIError: The api_key client option must be set …` at a line's start. */
const EXCEPTION_LINE_RE = /^[ \t]{0,8}(?:[A-Za-z_][\w]{0,60}\.){0,6}(?:[A-Z]\w{0,60})?(?:Error|Exception)[ \t]{0,4}:[ \t]{0,4}(\S[^\n]{0,2000})$/gm

function lastExceptionMessage(s: string): string | null {
  EXCEPTION_LINE_RE.lastIndex = 0
  let last: string | null = null
  let m: RegExpExecArray | null
  let n = 0
  while ((m = EXCEPTION_LINE_RE.exec(s)) !== null && n++ < 64) last = m[1]
  return last === null ? null : last.trim().replace(LEADING_STATUS_RE, "")
}

const TITLE_LINE_RE = /^(?:error|errors|exception|failed|failure|warning|错误|报错|失败|异常)[:：!.]?$/i

/**
 * The hard-wrapped rest of a message line: lines after a trailing backslash, indented lines
 * that continue a sentence in lower case (not stack frames or dumps), or the next lines of a
 * `> `-quoted block while the sentence goes on.
 */
function wrappedTail(s: string, line: string, from: number): string {
  let tail = ""
  let prev = line
  // the physical line's length, not the message's part of it (a class name may come before)
  let prevWidth = from - 1 - (s.lastIndexOf("\n", from - 2) + 1)
  for (let n = 0; n < 8 && from < s.length; n++) {
    const nl = s.indexOf("\n", from)
    const next = s.slice(from, nl === -1 ? s.length : nl)
    const backslash = prev.endsWith("\\")
    // a quoted block (`> ` before every line, as issue trackers and mail quote a terminal's
    // hard-wrapped output) continues while the sentence does
    const quoted = next.charCodeAt(0) === 62 && s.charCodeAt(s.lastIndexOf("\n", from - 2) + 1) === 62 && /^>[ \t]?\S/.test(next)
    // a line that ends with a colon introduces what follows (`403 Forbidden: spending-limit:` /
    // `You have run out of credits.`, `terminated with:` / `details = "…"`), unless that is a new
    // log line or a stack frame
    const colon = prev.endsWith(":") && next.trim() !== "" && !NEW_LOG_LINE_RE.test(next)
    // a terminal's hard wrap (a paste's quote marks taken off by unwrap.ts): a long line, then the
    // sentence going on in lower case at the next line's start
    const wrapped = prevWidth >= 60 && (/^[a-z]/.test(next) || (prev.endsWith("-") && /^[A-Za-z0-9]/.test(next))) && !NEW_LOG_LINE_RE.test(next)
    if (!backslash && !quoted && !colon && !wrapped && !/^[ \t]+[a-z]/.test(next)) break
    if (!backslash && (/^\s*(?:at|File)\s/.test(next) || /[.;!?]$/.test(prev))) break
    tail += "\n" + next
    prev = next.trimEnd()
    prevWidth = next.length
    if (nl === -1) break
    from = nl + 1
  }
  return tail
}

/** A line that starts a log record of its own (a timestamp or a bracketed level first). */
const NEW_LOG_LINE_RE = /^[ \t]{0,4}(?:\[?\d{2,4}[-/.:]\d\d|\[(?:ERROR|WARN|WARNING|INFO|DEBUG)\]|(?:ERROR|WARN|WARNING|INFO|DEBUG)[: ])/

function restOfLine(s: string, from: number): string {
  const nl = s.indexOf("\n", from)
  return s.slice(from, nl === -1 ? Math.min(s.length, from + 2000) : nl)
}

/** The unquoted value of the first ` error="…"` / ` err="…"` (Go's `\"`, `\\`, `\n` escapes), or null. */
function quotedErrorValue(s: string): string | null {
  let at = s.indexOf(' error="')
  let from = at === -1 ? -1 : at + 8
  const e2 = s.indexOf(' err="')
  if (e2 !== -1 && (at === -1 || e2 < at)) {
    at = e2
    from = e2 + 6
  }
  return from === -1 ? null : unquoteFrom(s, from)
}

/**
 * A logfmt line's `msg="…"` when its quoting hid what it holds (`msg="Error code: 400 - {\"error\": …}"`):
 * the message unescaped; null when it has no escapes (then it reads as it is) or is no logfmt value.
 */
function escapedMsgValue(s: string): string | null {
  const at = s.startsWith('msg="') ? 0 : s.indexOf(' msg="')
  if (at === -1) return null
  const from = at === 0 ? 5 : at + 6
  const close = s.indexOf('"', from)
  if (close === -1 || s.lastIndexOf("\\", close) < from) return null
  return unquoteFrom(s, from)
}

/** The Go-quoted (strconv.Quote) string starting at `from`, unescaped, up to its closing quote. */
function unquoteFrom(s: string, from: number): string | null {
  let out = ""
  let start = from
  const end = Math.min(s.length, from + 8192)
  for (let i = from; i < end; i++) {
    const c = s.charCodeAt(i)
    if (c === 34) return out + s.slice(start, i)
    if (c === 10) return null
    if (c === 92 && i + 1 < end) {
      const n = s[i + 1]
      out += s.slice(start, i) + (n === "n" ? "\n" : n === "t" ? "\t" : n)
      i++
      start = i + 1
    }
  }
  return null
}
