/**
 * Incremental record assembly: groups the lines of a log into records (CONTRACT section 3).
 *
 * A record begins at a non-indented line that is not a continuation; a timestamped line, a JSON
 * object line and an HTTP status line always begin a new one. Continuations are: indented lines
 * (stack frames, hard wraps), lines inside an open brace/bracket or an open double-quoted string,
 * lines after a trailing backslash, the headers and body of a `curl -i` / `curl -v` dump, the
 * final exception line of a Python traceback, and a JSON body right after a line that ends like
 * `Error code: 429 -` or `400 Bad Request`.
 *
 * A record cannot be known to be complete until the next line (or `flush`) arrives; until then
 * `resumePoint()` points at its first line, so a reader that commits that point re-reads it
 * after a crash. Records are bounded: at most `maxChars` characters of text (cut and flagged
 * `truncated`) and `maxLines` lines.
 */

export interface AssembledRecord {
  readonly text: string
  /** 1-based number of the record's first line. */
  readonly line: number
  /** Byte offset of the record's first byte. */
  readonly startOffset: number
  /** Byte offset just after the record's last line (as given by `push`). */
  readonly endOffset: number
  /** The record was longer than the limits and was cut. */
  readonly truncated: boolean
  /** Number of input lines the record consumed (its text may hold fewer when truncated). */
  readonly lineCount: number
}

export interface AssemblerOptions {
  /** Maximum record text length in UTF-16 code units (default 65536, "64 KiB"). */
  readonly maxChars?: number
  /** Maximum number of lines in one record (default 200). */
  readonly maxLines?: number
}

export const DEFAULT_MAX_RECORD_CHARS = 64 * 1024
export const DEFAULT_MAX_RECORD_LINES = 200
/** An open double-quoted string carries a record over at most this many lines. */
const MAX_STRING_LINES = 4

const Mode = {
  Plain: 0,
  /** After an HTTP status line: header lines continue. */
  Headers: 1,
  /** After the blank line that ends headers: the next line is the body. */
  BodyStart: 2,
  /** Inside an HTML body: lines continue until `</html>`. */
  BodyHtml: 3,
  /** A `curl -v` dump: `* `, `> `, `< ` lines continue. */
  CurlV: 4,
  /** After `Traceback (most recent call last):`: the final exception line continues. */
  Traceback: 5
} as const
type Mode = (typeof Mode)[keyof typeof Mode]

interface Pending {
  first: string
  parts: string[] | null
  chars: number
  lastLine: string
  line: number
  startOffset: number
  endOffset: number
  lineCount: number
  truncated: boolean
  depth: number
  /** 34 when the last line ended inside a double-quoted string. */
  quote: number
  stringLines: number
  backslash: boolean
  mode: Mode
  /** Whether the record came from `curl -v` (its body returns to CurlV mode). */
  curl: boolean
  /** A `curl -v` dump whose response (`< HTTP/...`) has been seen: a new request starts a new record. */
  curlResponded: boolean
}

/** A structured log line (pino, bunyan, winston...): a record of its own, never a body. */
const LOG_LINE_KEYS_RE = /^[{[]\s*"(?:level|lvl|severity|time|timestamp|@timestamp|ts|msg|logger|hostname|pid|name|v)"\s*:/
/** The first lines of another `curl -v` exchange. */
const CURL_NEW_EXCHANGE_RE = /^(?:\*\s+(?:Trying |Host |Connected to |Uses proxy )|> [A-Z]{3,7} \S)/

const TIMESTAMP_START_RE = /^\[?(?:\d{4}[-/.]\d\d[-/.]\d\d[T ]\d\d:\d\d|\d\d:\d\d:\d\d|\d{10,13}\b)/
const SYSLOG_START_RE = /^[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d/
const HEADER_LINE_RE = /^(?:< )?[A-Za-z0-9][A-Za-z0-9-]{0,80}:(?:[ \t]|$)/
// not a port (`10.0.3.46:443`), a path segment or part of a number
const ENDS_WITH_STATUS_RE = /(?:^|[^\w.:/])[45]\d\d(?:[ \t]+\(?[A-Za-z][A-Za-z \t'-]{0,40}\)?)?[ \t]*$/
const EXCEPTION_LINE_RE = /^[A-Za-z_][\w.]{0,200}(?:Error|Exception|Warning|Exit|Interrupt|Failure)\b|^[A-Za-z_][\w.]{0,200}:[ \t]/
const TRACEBACK_TAIL = "Traceback (most recent call last):"
/** loguru's marker of the frame that raised (`> File "/app/llm.py", line 41, in complete`). */
const LOGURU_FRAME = '> File "'

/** A fully qualified exception class leading the line (`java.net.SocketTimeoutException: …`, `System.ClientModel.ClientResultException: …`). */
const QUALIFIED_EXCEPTION_LINE_RE = /^(?:[A-Za-z_][\w$]{0,80}\.){1,12}[A-Z][\w$]{0,80}(?:Exception|Error)(?::|$)/
/** A Go function as zap's stacktrace names it (`main.(*Client).Complete`, `net/http.(*Client).Do`). */
const GO_FUNC_LINE_RE = /^[A-Za-z_][\w./*()-]{0,300}$/
const HTML_START_RE = /<(?:!doctype html|html|body)\b/i
const HTML_END_RE = /<\/html>/i

/** What `push` returns for a line that completes no record (most lines): one shared empty list (never changed). */
const NONE: ReadonlyArray<AssembledRecord> = []

export class RecordAssembler {
  private pending: Pending | null = null
  private readonly slot: Pending = {
    first: "",
    parts: null,
    chars: 0,
    lastLine: "",
    line: 0,
    startOffset: 0,
    endOffset: 0,
    lineCount: 0,
    truncated: false,
    depth: 0,
    quote: 0,
    stringLines: 0,
    backslash: false,
    mode: Mode.Plain,
    curl: false,
    curlResponded: false
  }
  private readonly maxChars: number
  private readonly maxLines: number

  constructor(options: AssemblerOptions = {}) {
    this.maxChars = Math.max(1, options.maxChars ?? DEFAULT_MAX_RECORD_CHARS)
    this.maxLines = Math.max(1, options.maxLines ?? DEFAULT_MAX_RECORD_LINES)
  }

  /**
   * Feed one line (without its newline; a trailing `\r` is dropped). `lineNo` is 1-based;
   * `startOffset`/`endOffset` are the byte offsets of the line's first byte and of the byte after
   * its newline. Returns the records that this line completed (zero, one, or rarely two).
   */
  push(line: string, lineNo: number, startOffset: number, endOffset: number): ReadonlyArray<AssembledRecord> {
    if (line.length > 0 && line.charCodeAt(line.length - 1) === 13) line = line.slice(0, -1)
    const p = this.pending
    const c0 = line.length === 0 ? -1 : line.charCodeAt(0)
    const blank = c0 === -1 || ((c0 === 32 || c0 === 9) && isBlank(line))

    if (p === null) {
      if (blank) return NONE
      this.pending = this.start(line, c0, lineNo, startOffset, endOffset)
      return this.checkLineBound()
    }

    if (blank) {
      if (p.mode === Mode.Headers || p.mode === Mode.CurlV) {
        p.mode = Mode.BodyStart
        this.append(p, line, endOffset)
        return this.checkLineBound()
      }
      // inside a traceback: loguru's (backtrace/diagnose) separates its frames with blank lines;
      // Microsoft.Extensions.Logging's simple console indents an exception's empty lines
      if (p.mode === Mode.BodyHtml || p.mode === Mode.Traceback || (c0 === 32 && isMelConsoleRecord(p.first))) {
        this.append(p, line, endOffset)
        return this.checkLineBound()
      }
      this.pending = null
      return [finish(p)]
    }

    if (this.continues(p, line, c0)) {
      this.append(p, line, endOffset)
      this.track(p, line, c0)
      return this.checkLineBound()
    }

    const done = finish(p)
    this.pending = this.start(line, c0, lineNo, startOffset, endOffset)
    const bounded = this.checkLineBound()
    return bounded.length === 0 ? [done] : [done, ...bounded]
  }

  /** End of input (or idle): returns the pending record, if any. */
  flush(): ReadonlyArray<AssembledRecord> {
    const p = this.pending
    if (p === null) return NONE
    this.pending = null
    return [finish(p)]
  }

  /** Start offset and line of the oldest record still pending; null when nothing is pending. */
  resumePoint(): { offset: number; line: number } | null {
    const p = this.pending
    return p === null ? null : { offset: p.startOffset, line: p.line }
  }

  private checkLineBound(): ReadonlyArray<AssembledRecord> {
    const p = this.pending
    if (p === null || p.lineCount < this.maxLines) return NONE
    p.truncated = true
    this.pending = null
    return [finish(p)]
  }

  private start(line: string, c0: number, lineNo: number, startOffset: number, endOffset: number): Pending {
    let first = line
    let truncated = false
    if (first.length > this.maxChars) {
      first = cut(first, this.maxChars)
      truncated = true
    }
    // one Pending for the assembler's life: a record is copied out (finish) before the next starts
    const p = this.slot
    p.first = first
    p.parts = null
    p.chars = first.length
    p.lastLine = line
    p.line = lineNo
    p.startOffset = startOffset
    p.endOffset = endOffset
    p.lineCount = 1
    p.truncated = truncated
    p.depth = 0
    p.quote = 0
    p.stringLines = 0
    p.backslash = false
    p.mode = Mode.Plain
    p.curl = false
    p.curlResponded = false
    if (c0 === 72 /* H */ && line.startsWith("HTTP/")) p.mode = Mode.Headers
    else if ((c0 === 42 /* * */ || c0 === 62 /* > */ || c0 === 60 /* < */) && isCurlVerboseLine(line)) {
      p.mode = Mode.CurlV
      p.curl = true
    }
    this.track(p, line, c0)
    return p
  }

  private append(p: Pending, line: string, endOffset: number): void {
    p.lineCount++
    p.endOffset = endOffset
    p.lastLine = line
    if (p.truncated && p.chars >= this.maxChars) return
    const room = this.maxChars - p.chars - 1
    if (room <= 0) {
      p.truncated = true
      return
    }
    let part = line
    if (part.length > room) {
      part = cut(part, room)
      p.truncated = true
    }
    if (p.parts === null) p.parts = [p.first]
    p.parts.push(part)
    p.chars += part.length + 1
  }

  /** Whether `line` (non-blank) continues the pending record. */
  private continues(p: Pending, line: string, c0: number): boolean {
    // Indented lines continue (stack frames, hard wraps, pretty-printed bodies).
    if (c0 === 32 || c0 === 9) return true
    if (p.mode === Mode.BodyStart) return true
    if (p.mode === Mode.CurlV && isCurlVerboseLine(line)) return !(p.curlResponded && CURL_NEW_EXCHANGE_RE.test(line))
    if (p.mode === Mode.BodyHtml && !isHardStart(line, c0)) return true
    if (c0 === 123 /* { */ || c0 === 91 /* [ */) {
      // A JSON line begins a new record, unless the previous line announced a body and the
      // line is not itself a structured log line.
      return p.depth === 0 && p.quote === 0 && !LOG_LINE_KEYS_RE.test(line) && invitesBody(p.lastLine)
    }
    if (c0 === 60 /* < */ && HTML_START_RE.test(line) && invitesBody(p.lastLine)) return true
    if (isHardStart(line, c0)) return false
    if (p.backslash) return true
    // A short first line that announces what follows (`ERROR:`, `ChatGPT error 523:`).
    if (p.lineCount === 1 && p.first.length <= 80 && lastNonSpaceCode(p.first) === 58) return true
    if (p.quote !== 0) return true
    if (p.depth > 0) {
      // Inside an open brace: closing lines and unindented JSON members continue; prose does not.
      if (c0 === 125 || c0 === 93 || c0 === 34 || c0 === 39 || c0 === 44 || c0 === 41) return true
      if (isPlainContinuationOfDump(line)) return true
      return false
    }
    if (p.mode === Mode.Headers) return HEADER_LINE_RE.test(line)
    if (p.mode === Mode.Traceback) return EXCEPTION_LINE_RE.test(line) || line.startsWith("During handling") || line.startsWith(LOGURU_FRAME)
    if (c0 === 67 /* C */ && line.startsWith("Caused by:")) return true
    // a log line at ERROR/WARN (Serilog's `ERR`/`WRN`), then the exception a JVM or .NET logger
    // prints under it (logback's and log4j2's pattern layouts, Serilog's `{NewLine}{Exception}`, `%throwable`: `com.openai.errors.RateLimitException: 429: …`
    // unindented, its `\tat` frames indented), or zap's development stack (`main.(*Client).Complete`,
    // then its tab-indented file)
    if (p.lineCount <= 2 && (p.first.indexOf("ERR") !== -1 || p.first.indexOf("WARN") !== -1 || p.first.indexOf("WRN") !== -1) && QUALIFIED_EXCEPTION_LINE_RE.test(line)) return true
    if (p.first.indexOf("\tERROR\t") !== -1 && line.indexOf(".") !== -1 && GO_FUNC_LINE_RE.test(line)) return true
    if (c0 === 84 /* T */ && line.startsWith(TRACEBACK_TAIL)) return true
    return false
  }

  /** Update brace depth, open-string state and mode after `line` joined `p`. */
  private track(p: Pending, line: string, c0: number): void {
    const n = line.length
    const last = lastNonSpaceCode(line)
    p.backslash = last === 92
    if (p.mode === Mode.BodyStart) {
      p.mode = c0 === 60 /* < */ && !isCurlVerboseLine(line) ? Mode.BodyHtml : p.curl ? Mode.CurlV : Mode.Plain
      if (c0 === 123 || c0 === 91) p.mode = p.curl ? Mode.CurlV : Mode.Plain
    } else if (p.mode === Mode.Traceback && c0 !== 32 && c0 !== 9 && !(c0 === 62 && line.startsWith(LOGURU_FRAME))) {
      p.mode = Mode.Plain
    } else if (p.mode === Mode.CurlV && c0 === 60 && line.startsWith("< HTTP/")) {
      p.curlResponded = true
    } else if (p.mode === Mode.CurlV && c0 === 60 && isBlank(line.slice(1))) {
      // `<` alone ends the response headers of `curl -v`: the body follows.
      p.mode = Mode.BodyStart
    }
    if (line.indexOf("<") !== -1) {
      if (p.mode === Mode.BodyHtml) {
        if (HTML_END_RE.test(line)) p.mode = Mode.Plain
      } else if (p.mode === Mode.Plain && HTML_START_RE.test(line) && !HTML_END_RE.test(line)) {
        p.mode = Mode.BodyHtml
      }
    }
    if (last === 58 /* : */ && line.endsWith(TRACEBACK_TAIL)) p.mode = Mode.Traceback

    // Fast paths: a one-line JSON object, or a line without brackets or quotes.
    if (p.depth === 0 && p.quote === 0) {
      if (c0 === 123 && last === 125) return
      if (quickBalanced(line, last)) return
    }
    let depth = p.depth
    let q = p.quote
    for (let i = 0; i < n; i++) {
      const c = line.charCodeAt(i)
      if (q !== 0) {
        if (c === 92) i++
        else if (c === q) q = 0
        continue
      }
      if (c === 34) q = 34
      else if (c === 39) {
        if (!(isLetter(line.charCodeAt(i - 1)) && isLetter(line.charCodeAt(i + 1)))) q = 39
      } else if (c === 123 || c === 91) depth++
      else if (c === 125 || c === 93) {
        if (depth > 0) depth--
      }
    }
    if (q === 39) q = 0
    if (q === 34) {
      p.stringLines++
      if (p.stringLines > MAX_STRING_LINES) {
        q = 0
        p.stringLines = 0
      }
    } else p.stringLines = 0
    p.depth = depth
    p.quote = q
  }
}

function finish(p: Pending): AssembledRecord {
  return {
    text: p.parts === null ? p.first : p.parts.join("\n"),
    line: p.line,
    startOffset: p.startOffset,
    endOffset: p.endOffset,
    truncated: p.truncated,
    lineCount: p.lineCount
  }
}

function isBlank(line: string): boolean {
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i)
    if (c !== 32 && c !== 9 && c !== 13) return false
  }
  return true
}

function lastNonSpaceCode(line: string): number {
  for (let i = line.length - 1; i >= 0; i--) {
    const c = line.charCodeAt(i)
    if (c !== 32 && c !== 9) return c
  }
  return -1
}

function isLetter(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122)
}

function countChar(line: string, ch: string): number {
  let n = 0
  let i = line.indexOf(ch)
  while (i !== -1) {
    n++
    i = line.indexOf(ch, i + 1)
  }
  return n
}

const BRACKET_OR_QUOTE_RE = /[[\]{}"]/

/** A line whose brackets balance and whose double quotes pair up (checked without a full scan). */
function quickBalanced(line: string, last: number): boolean {
  if (last === 123 || last === 91) return false
  // most text lines have no bracket and no quote: one scan instead of five
  if (!BRACKET_OR_QUOTE_RE.test(line)) return true
  const opens = countChar(line, "{") + countChar(line, "[")
  const closes = countChar(line, "}") + countChar(line, "]")
  if (opens !== closes) return false
  if (line.indexOf('"') === -1) return true
  return (countChar(line, '"') - countChar(line, '\\"')) % 2 === 0
}

/** Lines that always begin a record: timestamped lines, JSON object lines, HTTP status lines. */
function isHardStart(line: string, c0: number): boolean {
  if (c0 === 123) return true
  if ((c0 >= 48 && c0 <= 57) || c0 === 91) return TIMESTAMP_START_RE.test(line)
  if (c0 === 72 && line.startsWith("HTTP/")) return true
  if (c0 >= 65 && c0 <= 90) return SYSLOG_START_RE.test(line)
  return false
}

function isCurlVerboseLine(line: string): boolean {
  const c0 = line.charCodeAt(0)
  if (c0 !== 42 && c0 !== 62 && c0 !== 60 && c0 !== 123 && c0 !== 125) return false
  if (line.length === 1) return c0 !== 123 && c0 !== 125
  const c1 = line.charCodeAt(1)
  if (c0 === 123 || c0 === 125) return c1 === 32 && line.charCodeAt(2) === 91 // `{ [5 bytes data]`
  return c1 === 32
}

/** The previous line ends like `Error code: 429 -`, `body:`, `400 Bad Request`: a body follows. */
function invitesBody(prev: string): boolean {
  const last = lastNonSpaceCode(prev)
  if (last === 125 || last === 93 || last === -1) return false
  if (last === 58 || last === 0xff1a || last === 45 || last === 61) return true
  return ENDS_WITH_STATUS_RE.test(prev)
}

/** Unindented lines of a JS object dump that still belong to it (`status: 403,`). */
function isPlainContinuationOfDump(line: string): boolean {
  return /^[A-Za-z_$][\w$-]{0,60}:[ \t]/.test(line) && /[,{[]\s*$/.test(line)
}

/** Cut `text` to at most `max` UTF-16 units without splitting a surrogate pair. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text
  let end = max
  const c = text.charCodeAt(end - 1)
  if (c >= 0xd800 && c <= 0xdbff) end--
  return text.slice(0, end)
}

/** A record of Microsoft.Extensions.Logging's simple console formatter (`fail: Acme.Llm.ChatService[0]`). */
function isMelConsoleRecord(first: string): boolean {
  return first.length > 6 && first.charCodeAt(4) === 58 && (first.startsWith("fail: ") || first.startsWith("crit: ") || first.startsWith("warn: "))
}
