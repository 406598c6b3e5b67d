/**
 * One record of log text (or one webhook object) -> ParsedFailure (CONTRACT sections 3 and 6).
 *
 * Order of work: a cheap pre-filter (most log lines stop there), then redaction of secrets and
 * chat messages, then extraction. JSON lines are `JSON.parse`d only when they start with `{`.
 * Every field is first-writer-wins, and the writers run from the most specific source (explicit
 * keys, the error body) to the least (the surrounding prose). Never throws.
 */
import type { Evidence, EvidenceMap, ExplainedField, Extractor, ParseResult } from "./ParsedFailure.js"
import { redact, redactValue, stripMessages } from "./redact.js"
import { DEFAULT_MAX_RECORD_CHARS } from "./assemble.js"
import { firstNonSpace, looksLikeObject, parseLoose, parseLooseText, scanFields, type LooseResult } from "./loose-json.js"
import { LineSignal, SERVICE_CODE_RE, SIGNAL_WORDS_RE } from "./lineSignals.js"
import { categoryFromWording } from "../catalog/wording.js"
import { providerOfText } from "../catalog/index.js"

export const ignoreReasons = ["empty", "no failure signal", "status < 400", "not an API call", "unreadable"] as const
export type IgnoreReason = (typeof ignoreReasons)[number]

export interface ParseOptions {
  /** The record was cut by the assembler. */
  readonly truncated?: boolean
  /** `hasFailureSignal(text)` was already found true (the tailer's scanner checks it). */
  readonly prefiltered?: boolean
  /** Collect the evidence of each field (`--explain`): slower, never on the hot path. */
  readonly explain?: boolean
}

export const SAMPLE_MAX_BYTES = 4096
const MESSAGE_MAX = 1000
const MAX_DEPTH = 4

const IGNORED: Readonly<Record<IgnoreReason, ParseResult>> = Object.freeze({
  empty: Object.freeze({ _tag: "Ignored", reason: "empty" }),
  "no failure signal": Object.freeze({ _tag: "Ignored", reason: "no failure signal" }),
  "status < 400": Object.freeze({ _tag: "Ignored", reason: "status < 400" }),
  "not an API call": Object.freeze({ _tag: "Ignored", reason: "not an API call" }),
  unreadable: Object.freeze({ _tag: "Ignored", reason: "unreadable" })
})

// ---------------------------------------------------------------------------------------------
// Pre-filter

/** The failure words in Chinese: their own test, since a non-ASCII class under /i is slow. */
const SIGNAL_CJK_RE = /[错失异限超繁余实存拒额]/
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
    if (isStatusLikeNumber(text, i) && (leftKeyword(text, i, true) || rightReason(text, i + 3) || lineStartStatus(text, i) || afterHttpVersion(text, i))) {
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

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57
}

function isAlnum(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122)
}

// ---------------------------------------------------------------------------------------------
// Draft: a mutable ParsedFailure plus what the decision "is this a failed call" needs.

interface Draft {
  status: number | null
  /** A status read from the body (`status`, or an HTTP-like `code`), used when nothing better. */
  bodyStatus: number | null
  code: number | string | null
  message: string | null
  model: string | null
  requestId: string | null
  occurredAt: string | null
  /** Where the time may be read (resolved only for failures): JSON objects with time keys, texts. */
  timeObjects: Array<Record<string, unknown>>
  timeTexts: string[]
  service: string | null
  /** A service named only by the shipper's Kubernetes metadata: used when nothing names one. */
  serviceFallback: string | null
  endpoint: string | null
  stream: boolean | null
  bodyNotJson: boolean
  htmlSeen: boolean
  jsonBody: boolean
  /** The message was taken from a text that `readHints` already scanned. */
  messageHinted: boolean
  errorType: string | null
  errorClass: string | null
  knownClass: boolean
  transportError: string | null
  /** The transport error was given explicitly (webhook `error`): no API context needed. */
  transportExplicit: boolean
  messagesCount: number | null
  truncated: boolean
  /** An error body of the API was read (code + message, or an `error` member). */
  hasBody: boolean
  /** An explicit non-HTTP error code in prose (`error code: 1010`). */
  explicitCode: boolean
  sawPath: boolean
  sawLlmPath: boolean
  /** Given explicitly (webhook `provider`). */
  provider: string | null
  /** The extractor at work: what evidence is attributed to. */
  from: Extractor
  /** The evidence of each field, when asked for (`--explain`); null otherwise. */
  explain: EvidenceMap | null
}

function newDraft(): Draft {
  return {
    status: null,
    bodyStatus: null,
    code: null,
    message: null,
    model: null,
    requestId: null,
    occurredAt: null,
    timeObjects: [],
    timeTexts: [],
    service: null,
    serviceFallback: null,
    endpoint: null,
    stream: null,
    bodyNotJson: false,
    htmlSeen: false,
    jsonBody: false,
    messageHinted: false,
    errorType: null,
    errorClass: null,
    knownClass: false,
    transportError: null,
    transportExplicit: false,
    messagesCount: null,
    truncated: false,
    hasBody: false,
    explicitCode: false,
    sawPath: false,
    sawLlmPath: false,
    provider: null,
    from: "free-text",
    explain: null
  }
}

// ---------------------------------------------------------------------------------------------
// Entry points

/** Parse one record of log text. */
export function parseRecord(text: string, opts?: ParseOptions): ParseResult {
  try {
    if (firstNonSpace(text) === -1) return IGNORED.empty
    if (opts?.prefiltered !== true && !hasFailureSignal(text)) return IGNORED["no failure signal"]
    const stripped = stripMessages(redact(text))
    const clean = stripped.text
    const d = newDraft()
    if (opts?.explain === true) d.explain = {}
    d.messagesCount = stripped.count
    d.truncated = opts?.truncated === true
    readText(clean, d, 0)
    return conclude(d, clean)
  } catch {
    return IGNORED.unreadable
  }
}

/**
 * Parse a webhook object (CONTRACT section 6): structured fields, or a raw record in
 * `raw` / `log` / `message` whose other fields are hints. Structured fields take precedence.
 */
export function parseStructured(obj: Record<string, unknown>, opts?: { readonly explain?: boolean }): ParseResult {
  try {
    if (!isRecord(obj)) return IGNORED.empty
    // Secrets are removed by walking the value (any type under a secret-named key, every string),
    // not by rewriting its serialization: escaped JSON inside strings and non-string header
    // values are redacted as surely as in a log line, and deep nesting is cut, not fatal.
    const cleaned = redactValue(obj)
    const parsed = cleaned.value
    if (!isRecord(parsed) || Object.keys(parsed).length === 0) return IGNORED.empty
    const o = parsed
    const d = newDraft()
    if (opts?.explain === true) d.explain = {}
    d.from = "webhook"
    d.messagesCount = cleaned.messagesCount
    const fullRaw = str(o["raw"]) ?? str(o["log"]) ?? (isRawMessage(o) ? str(o["message"]) : null)
    // a raw record is bounded like a tailed one: cut and flagged, not refused
    const raw = fullRaw !== null && fullRaw.length > DEFAULT_MAX_RECORD_CHARS ? fullRaw.slice(0, DEFAULT_MAX_RECORD_CHARS) : fullRaw
    if (raw !== fullRaw) d.truncated = true

    setStatus(d, toStatus(o["status"]) ?? toStatus(o["statusCode"]))
    setCode(d, o["code"])
    if (raw === null && typeof o["message"] === "string") readMessageValue(o["message"], d, 0)
    setModel(d, o["model"])
    setRequestId(d, o["requestId"] ?? o["request_id"])
    if (d.occurredAt === null) d.occurredAt = timeValue(o["occurredAt"])
    if (typeof o["service"] === "string" && o["service"] !== "") d.service = o["service"]
    const endpoint = str(o["endpoint"])
    if (endpoint !== null) notePath(d, endpoint, true)
    if (typeof o["stream"] === "boolean") d.stream = o["stream"]
    const provider = str(o["provider"])
    if (provider !== null && provider.length <= 64) {
      d.provider = provider.trim().toLowerCase()
      note(d, "provider", provider)
    }
    const error = o["error"]
    if (typeof error === "string" && error.trim() !== "" && !looksLikeObject(error)) {
      d.transportError = transportSignature(error) ?? normalizeMessage(error)
      d.transportExplicit = true
      setMessage(d, error)
    }
    readBodyValue(o["body"], d, 0, true)
    if (raw !== null) readText(raw, d, 0)
    readLogObject(o, d, 0)
    return conclude(d, raw ?? JSON.stringify(o))
  } catch {
    return IGNORED.unreadable
  }
}

function isRawMessage(o: Record<string, unknown>): boolean {
  return o["status"] === undefined && o["body"] === undefined && o["code"] === undefined && o["error"] === undefined
}

// ---------------------------------------------------------------------------------------------
// The decision

const LLM_CONTEXT_RE =
  /openai|anthropic|litellm|\bllm|\bgpt|claude|gemini|deepseek|qwen|siliconflow|mistral|groq|ollama|dashscope|moonshot|zhipu|\/v\d+\/|completions|embeddings|\bchat\b|\bmodels?\b|\bapi\b|RateLimitError|APIConnectionError|APITimeoutError|模型/i
const LLM_WORDS_RE =
  /openai|anthropic|litellm|\bllm|\bgpt|claude|gemini|deepseek|qwen|siliconflow|mistral|groq|ollama|dashscope|completions|embeddings|\bmodels?\b|模型/i

function conclude(d: Draft, text: string): ParseResult {
  if (d.status === null && d.bodyStatus !== null) {
    d.status = d.bodyStatus
    if (d.explain !== null && d.explain.bodyStatus !== undefined) d.explain.status = d.explain.bodyStatus
  }
  const ignored = decide(d, text)
  if (ignored !== null) return d.explain === null ? ignored : { ...ignored, evidence: finalEvidence(d.explain) }
  let provider = d.provider
  if (provider === null) {
    const told = providerOfText(text)
    if (told !== null) {
      provider = told.provider
      if (d.explain !== null) d.explain.provider = { from: told.via === "host" ? "api-host" : "provider-marker", text: span(told.text) }
    }
  }
  if (d.occurredAt === null) d.occurredAt = resolveTime(d)
  if (d.service === null) d.service = d.serviceFallback
  return {
    _tag: "Failure",
    failure: {
      status: d.status,
      code: d.code,
      message: d.message,
      model: d.model,
      requestId: d.requestId,
      occurredAt: d.occurredAt,
      service: d.service,
      endpoint: d.endpoint,
      stream: d.stream,
      bodyNotJson: d.bodyNotJson,
      errorType: d.errorType,
      errorClass: d.errorClass,
      transportError: d.transportError,
      messagesCount: d.messagesCount,
      truncated: d.truncated,
      provider
    },
    sample: cutUtf8(text, SAMPLE_MAX_BYTES),
    ...(d.explain === null ? {} : { evidence: finalEvidence(d.explain) })
  }
}

/** The first time found: JSON time keys of the outermost object first, then timestamps in texts. */
function resolveTime(d: Draft): string | null {
  for (const o of d.timeObjects) {
    for (const k of TIME_KEYS) {
      const t = timeValue(o[k])
      if (t !== null) return t
    }
  }
  for (const s of d.timeTexts) {
    const t = findTimestamp(s)
    if (t !== null) return t
  }
  return null
}

/** Null when the draft is a failed call, else the Ignored result saying why not. */
function decide(d: Draft, text: string): ParseResult | null {
  if (d.message !== null && !d.messageHinted) readHints(d.message, d)
  if (d.htmlSeen && !d.jsonBody) d.bodyNotJson = true
  if (d.status !== null) {
    if (d.status < 400) return IGNORED["status < 400"]
    // An access log line of some other HTTP endpoint (`GET /users/42 404`) is not an API call.
    if (!d.hasBody && d.sawPath && !d.sawLlmPath && !d.knownClass && !LLM_WORDS_RE.test(text)) {
      return IGNORED["not an API call"]
    }
  } else if (!d.hasBody && !d.explicitCode) {
    const worded =
      categoryFromWording(text.length > 8192 ? text.slice(0, 8192) : text) !== null ||
      (d.knownClass && LLM_CONTEXT_RE.test(text))
    if (!worded) {
      if (d.transportError === null) return IGNORED["no failure signal"]
      if (!d.transportExplicit && !LLM_CONTEXT_RE.test(text)) return IGNORED["not an API call"]
    }
  }
  return null
}

// ---------------------------------------------------------------------------------------------
// JSON log objects (pino, winston, bunyan, structlog, Vector / Fluent Bit records)

const STATUS_PATHS: ReadonlyArray<ReadonlyArray<string>> = [
  ["status"],
  ["statusCode"],
  ["status_code"],
  ["http", "status_code"],
  ["http.status_code"],
  ["http", "response", "status_code"],
  ["http.response.status_code"],
  ["res", "statusCode"],
  ["response", "status"],
  ["response", "statusCode"],
  ["response", "status_code"],
  ["err", "status"],
  ["err", "statusCode"],
  ["error", "status"],
  ["error", "statusCode"]
]

const BODY_PATHS: ReadonlyArray<ReadonlyArray<string>> = [
  ["body"],
  ["response", "body"],
  ["responseBody"],
  ["response_body"],
  ["err", "response", "data"],
  ["error", "response", "data"],
  ["response", "data"],
  ["err", "body"],
  ["data"]
]

const TEXT_KEYS = ["msg", "message", "log", "event"] as const
/** Exception texts (structlog, Python logging JSON formatters): read before the log message. */
const EXCEPTION_KEYS = ["exception", "exc_info", "exc_text", "stack_trace"] as const
const TIME_KEYS = ["time", "timestamp", "@timestamp", "ts", "date", "datetime", "asctime", "t"] as const
const SERVICE_KEYS = ["service", "app", "service_name", "serviceName", "application", "name"] as const

function readLogObject(o: Record<string, unknown>, d: Draft, depth: number): void {
  if (depth > MAX_DEPTH) return
  const outer = d.from
  if (outer !== "webhook") d.from = "json-log"
  for (const path of STATUS_PATHS) {
    if (d.status !== null) break
    setStatus(d, toStatus(getPath(o, path)))
  }
  for (const path of BODY_PATHS) readBodyValue(getPath(o, path), d, depth, path[0] !== "data")

  const error = o["error"]
  if (isRecord(error)) {
    if (isExceptionObject(error)) readErrorObject(error, d, depth)
    else d.hasBody = readErrorMember(error, d, depth) || d.hasBody
  } else if (typeof error === "string") {
    readBodyValue(error, d, depth, true)
  }
  const err = o["err"]
  if (isRecord(err)) readErrorObject(err, d, depth)
  else if (typeof err === "string") readText(err, d, depth + 1)
  for (const k of EXCEPTION_KEYS) {
    const v = o[k]
    if (typeof v === "string" && v !== "") readText(lastExceptionLine(v), d, depth + 1)
  }

  // The object itself may be an error body: the service's `{code, message, data}`.
  if (o["code"] !== undefined && o["code"] !== null && (typeof o["message"] === "string" || typeof o["msg"] === "string")) {
    d.hasBody = readBody(o, d, depth) || d.hasBody
  } else if (typeof o["detail"] === "string" && toStatus(o["status"]) !== null) {
    d.hasBody = readBody(o, d, depth) || d.hasBody
  }

  if (d.timeObjects.length < 4) d.timeObjects.push(o)
  if (d.service === null) d.service = serviceOf(o)
  if (d.serviceFallback === null) d.serviceFallback = kubernetesServiceOf(o)
  scanObjectHints(o, d)

  for (const k of TEXT_KEYS) {
    const v = o[k]
    if (typeof v === "string" && v !== "") readMessageText(v, d, depth + 1)
  }
  d.from = outer
}

/**
 * A log or exception message: parsed as text, unless status and error body are already known,
 * in which case it can only add hints (a model, a request id).
 */
function readMessageText(v: string, d: Draft, depth: number): void {
  if (d.status !== null && d.hasBody && d.message !== null) readHints(v, d)
  else readText(v, d, depth)
}

/** The final line of a Python traceback (`openai.APITimeoutError: Request timed out.`), or the text. */
function lastExceptionLine(v: string): string {
  if (!v.startsWith("Traceback")) return v
  const end = v.trimEnd()
  const nl = end.lastIndexOf("\n")
  return nl === -1 ? end : end.slice(nl + 1)
}

function readErrorObject(e: Record<string, unknown>, d: Draft, depth: number): void {
  if (depth > MAX_DEPTH) return
  const outer = d.from
  d.from = "exception-object"
  const name = str(e["type"]) ?? str(e["name"])
  if (name !== null && /^[A-Za-z_][\w.]*(?:Error|Exception|Timeout)$/.test(name)) setClass(d, name)
  setStatus(d, toStatus(e["status"]) ?? toStatus(e["statusCode"]) ?? toStatus(getPath(e, ["response", "status"])))
  const code = e["code"]
  if (typeof code === "string" && TRANSPORT_CODE_RE.test(code)) {
    if (d.transportError === null) d.transportError = code
  } else {
    setCode(d, code)
  }
  const inner = e["error"]
  if (isRecord(inner)) {
    d.hasBody = (isRecord(inner["error"]) ? readBody(inner, d, depth + 1) : readErrorMember(inner, d, depth + 1)) || d.hasBody
  }
  readBodyValue(getPath(e, ["response", "data"]), d, depth + 1, true)
  readBodyValue(e["body"], d, depth + 1, true)
  const headers = e["headers"]
  if (isRecord(headers)) setRequestId(d, headers["x-request-id"] ?? headers["request-id"])
  setRequestId(d, e["request_id"] ?? e["requestID"] ?? e["requestId"])
  const message = e["message"]
  if (typeof message === "string" && message !== "") readMessageText(message, d, depth + 1)
  const cause = e["cause"]
  if (isRecord(cause)) readErrorObject(cause, d, depth + 1)
  else if (typeof cause === "string") readText(cause, d, depth + 1)
  d.from = outer
}

/** A serialized exception (`{type, message, stack}`), as opposed to an API `error` member. */
function isExceptionObject(e: Record<string, unknown>): boolean {
  const code = e["code"]
  return (
    typeof e["stack"] === "string" || typeof e["name"] === "string" || isRecord(e["cause"]) ||
    e["syscall"] !== undefined || (typeof code === "string" && TRANSPORT_CODE_RE.test(code))
  )
}

/** A body value that may be an object, a JSON string or plain text. `textual`: plain text counts. */
function readBodyValue(v: unknown, d: Draft, depth: number, textual: boolean): void {
  if (v === undefined || v === null || depth > MAX_DEPTH) return
  if (isRecord(v)) {
    d.hasBody = readBody(v, d, depth + 1) || d.hasBody
    return
  }
  if (typeof v !== "string" || v.trim() === "") return
  if (looksLikeObject(v)) {
    const parsed = parseLooseText(v)
    if (isRecord(parsed)) {
      d.hasBody = readBody(parsed, d, depth + 1) || d.hasBody
      return
    }
  }
  if (textual) readText(v, d, depth + 1)
}

// ---------------------------------------------------------------------------------------------
// Error bodies: OpenAI-style `{"error": {...}}`, the service's `{code, message, data}`,
// FastAPI `{detail}`, problem+json `{title, detail, status}`, Anthropic `{type, error}`.

const MESSAGE_KEYS = ["message", "msg", "error_msg", "errorMessage", "error_message", "detail", "error_description"] as const

/** Returns whether `o` is recognisably an error body. */
function readBody(o: Record<string, unknown>, d: Draft, depth: number): boolean {
  if (depth > MAX_DEPTH + 2) return false
  const outer = d.from
  d.from = "error-body"
  d.jsonBody = true
  let recognized = false
  const err = o["error"]
  if (isRecord(err)) {
    recognized = readErrorMember(err, d, depth)
  } else if (typeof err === "string" && err.trim() !== "") {
    if (looksLikeObject(err)) {
      const inner = parseLooseText(err)
      if (isRecord(inner)) recognized = readBody(inner, d, depth + 1)
    } else {
      setMessage(d, err)
      recognized = true
    }
  }
  let message: string | null = null
  for (const k of MESSAGE_KEYS) {
    const v = o[k]
    if (typeof v === "string" && v.trim() !== "") {
      message = v
      break
    }
  }
  if (message !== null) readMessageValue(message, d, depth)
  const detail = o["detail"]
  if (isRecord(detail)) recognized = readBody(detail, d, depth + 1) || recognized
  const code = normCode(o["code"] ?? o["error_code"] ?? o["errorCode"])
  if (code !== null) {
    setCode(d, code)
    if (typeof code === "number") setBodyStatus(d, code)
  }
  const type = str(o["type"])
  if (type !== null && type !== "error") setErrorType(d, type)
  const status = toStatus(o["status"]) ?? toStatus(o["statusCode"])
  if (status !== null) setBodyStatus(d, status)
  const title = str(o["title"])
  if (title !== null && message === null) setMessage(d, title)
  d.from = outer
  return recognized || (code !== null && message !== null) || ((message !== null || title !== null) && status !== null)
}

/** The `error` member of an OpenAI-style body: `{message, type, code, param}`. */
function readErrorMember(err: Record<string, unknown>, d: Draft, depth: number): boolean {
  const outer = d.from
  d.from = "error-body"
  d.jsonBody = true
  const message = str(err["message"]) ?? str(err["msg"])
  if (message !== null) readMessageValue(message, d, depth)
  const code = normCode(err["code"])
  if (code !== null) {
    setCode(d, code)
    if (typeof code === "number") setBodyStatus(d, code)
  }
  const type = str(err["type"])
  if (type !== null) setErrorType(d, type)
  const status = toStatus(err["status"])
  if (status !== null) setBodyStatus(d, status)
  d.from = outer
  return message !== null || code !== null || type !== null
}

/** A body message, which may itself be a JSON body serialized into the string. */
function readMessageValue(message: string, d: Draft, depth: number): void {
  if (looksLikeObject(message)) {
    const inner = parseLooseText(message)
    if (isRecord(inner)) {
      readBody(inner, d, depth + 1)
      return
    }
    const f = scanFields(message)
    if (f.message !== null) setMessage(d, f.message)
    setCode(d, f.code)
    return
  }
  setMessage(d, message)
}

// ---------------------------------------------------------------------------------------------
// Text records

const STATUS_LINE_RE = /(?:^|\n)[<>* \t]{0,4}HTTP\/\d(?:\.\d)?[ \t]+([1-5]\d\d)\b/
/** `HTTP/1.1 502 Bad Gateway` inside a line, or an access log's `"GET /x HTTP/1.1" 404`. */
const INLINE_STATUS_LINE_RE = /HTTP\/\d(?:\.\d)?"?[ \t]+([1-5]\d\d)\b/
const HTML_RE = /<(?:!doctype\s+html|html|head|body|title|h1|center)\b/i
const TITLE_RE = /<title[^>]{0,200}>([^<]{1,300})</i
const H1_RE = /<h1[^>]{0,300}>([\s\S]{0,600}?)<\/h1>/i
const TAG_RE = /<[^>]{0,300}>/g
const BODY_SPLIT_RE = /\n(?:<[ \t]*)?\r?\n/

function readText(s: string, d: Draft, depth: number): void {
  if (depth > MAX_DEPTH) return
  const first = firstNonSpace(s)
  if (first === -1) return
  if (s.charCodeAt(first) === 123 && depth < MAX_DEPTH) {
    const v = parseJsonText(s)
    if (isRecord(v) && Object.keys(v).length > 0) {
      readLogObject(v, d, depth + 1)
      return
    }
  }

  if (d.timeTexts.length < 4) d.timeTexts.push(s)
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
  const statusLine = STATUS_LINE_RE.exec(s) ?? INLINE_STATUS_LINE_RE.exec(s)
  if (statusLine !== null) {
    d.from = "http-dump"
    setStatus(d, Number(statusLine[1]), lineAround(s, statusLine.index + statusLine[0].length - 3))
    if (body === null && STATUS_LINE_RE.test(s)) readDumpBody(s, statusLine.index, d)
  }

  // HTML error pages: the message is the page title.
  if (HTML_RE.test(s)) {
    d.from = "html"
    d.htmlSeen = true
    const title = TITLE_RE.exec(s)
    if (title !== null) setMessage(d, decodeEntities(title[1]))
    else {
      const h1 = H1_RE.exec(s)
      if (h1 !== null) setMessage(d, decodeEntities(h1[1].replace(TAG_RE, " ")))
    }
  }

  let statusAt = -1
  if (d.status === null) {
    const found = findStatus(s, body === null ? -1 : body.start, body === null ? -1 : body.end)
    if (found !== null) {
      d.from = found.index === -1 ? "reason-phrase" : "status-text"
      setStatus(d, found.status, found.index === -1 ? found.phrase : lineAround(s, found.index))
      statusAt = found.index
    }
  }
  const cls = findClass(s)
  if (cls !== null) {
    d.from = "sdk-exception"
    setClass(d, cls.name)
  }
  d.from = "error-code-text"
  readExplicitCodes(s, d)
  d.from = "logfmt"
  readLogfmt(s, d)
  d.from = "free-text"
  if (d.message === null) {
    const kv = KV_MESSAGE_RE.exec(s)
    if (kv !== null) setMessage(d, kv[1] ?? kv[2] ?? kv[3])
  }
  readHints(s, d)
  notePaths(s, d)

  if (d.message === null) {
    if (cls !== null && s.charCodeAt(cls.end) === 58) d.from = "sdk-exception"
    setMessage(d, deriveMessage(s, cls, statusAt))
  }
  if (!hadMessage && d.message !== null) d.messageHinted = true
  d.from = outer
}

function parseJsonText(s: string): unknown {
  try {
    return JSON.parse(s) as unknown
  } catch {
    const r = parseLoose(s, firstNonSpace(s))
    return r?.value
  }
}

/** The body of an HTTP dump (after the blank line that ends the headers), when it is not JSON. */
function readDumpBody(s: string, statusAt: number, d: Draft): void {
  const rest = s.slice(statusAt)
  const split = BODY_SPLIT_RE.exec(rest)
  if (split === null) return
  const bodyText = rest.slice(split.index + split[0].length)
  const f = firstNonSpace(bodyText)
  if (f === -1) return
  const c = bodyText.charCodeAt(f)
  if (c === 123 || c === 91) return
  if (c === 60 /* < */) {
    d.htmlSeen = true
    return
  }
  d.bodyNotJson = true
  const nl = bodyText.indexOf("\n", f)
  setMessage(d, bodyText.slice(f, nl === -1 ? bodyText.length : nl))
}

interface FoundBody {
  readonly value: Record<string, unknown>
  readonly start: number
  readonly end: number
}

const BODY_KEYS = ["error", "code", "message", "msg", "detail", "status", "error_msg", "errorMessage", "title", "statusCode"]
const MAX_BODY_TRIES = 8

/** The first embedded object that looks like an error body (bounded number of attempts). */
function findBody(s: string): FoundBody | null {
  let at = s.indexOf("{")
  let tries = 0
  while (at !== -1 && tries < MAX_BODY_TRIES) {
    tries++
    const before = s.charCodeAt(at - 1)
    let r: LooseResult | null = null
    let start = at
    if ((before === 34 || before === 39) && s.charCodeAt(at + 1) === 92) {
      // A JSON body serialized into a string: `"{\"error\": ...}"`.
      const quoted = parseLoose(s, at - 1)
      if (quoted !== undefined && typeof quoted.value === "string") {
        const inner = parseLooseText(quoted.value)
        if (isRecord(inner)) {
          r = { value: inner, end: quoted.end, complete: quoted.complete }
          start = at - 1
        }
      }
    }
    if (r === null) r = parseLoose(s, at) ?? null
    if (r !== null && isRecord(r.value) && isBodyLike(r.value)) {
      return { value: r.value, start, end: r.end }
    }
    const next = r !== null && r.complete && r.end > at + 1 && isRecord(r.value) ? r.end : at + 1
    at = s.indexOf("{", next)
  }
  return null
}

function isBodyLike(o: Record<string, unknown>): boolean {
  for (const k of BODY_KEYS) if (o[k] !== undefined) return true
  return false
}

// --- status ------------------------------------------------------------------------------------

const STATUS_CANDIDATE_RE = /(?<![\w.\/+\-]|\d[,:])([45]\d\d)(?![\w]|[.,:]\d)/g
const LEFT_SKIP = new Set([32, 9, 58, 61, 91, 40, 34, 39, 44, 35, 0xff1a, 0x3010, 0xff08])
const LEFT_KEYWORDS = ["status", "satus", "code", "http", "error", "err", "failed", "failure", "exception", "response", "错误", "失败", "状态", "码", "返回", "异常"]
const RIGHT_SKIP = new Set([32, 9, 58, 40, 45, 34])
const REASONS = [
  "bad request", "unauthorized", "payment required", "forbidden", "not found", "method not allowed",
  "not acceptable", "request timeout", "request time-out", "conflict", "gone", "payload too large",
  "request entity too large", "unsupported media type", "unprocessable", "too many requests",
  "internal server error", "internal error", "server error", "not implemented", "bad gateway",
  "service unavailable", "service temporarily unavailable", "gateway timeout", "gateway time-out",
  "web server", "connection timed out", "origin is unreachable", "a timeout occurred",
  "ssl handshake failed", "invalid ssl certificate", "unavailable", "resource_exhausted",
  "resource exhausted", "deadline_exceeded", "permission_denied", "unauthenticated", "status code",
  "error"
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
  ["origin is unreachable", 523]
]

function findStatus(s: string, skipFrom: number, skipTo: number): { status: number; index: number; phrase?: string } | null {
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
    if (leftKeyword(s, i) || rightReason(s, i + 3) || lineStartStatus(s, i)) return { status: Number(m[1]), index: i }
  }
  const lower = (s.length > 8192 ? s.slice(0, 8192) : s).toLowerCase()
  for (const [phrase, status] of REASON_ONLY) {
    const at = lower.indexOf(phrase)
    if (at !== -1) return { status, index: -1, phrase: s.slice(at, at + phrase.length) }
  }
  return null
}

/**
 * A status word right before the number at `i` (`HTTP 503`, `"status": 503`, `错误码：403`).
 * `loose` (the pre-filter, which sees escaped JSON-in-JSON text) also skips backslashes.
 */
function leftKeyword(s: string, i: number, loose = false): boolean {
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

function rightReason(s: string, k: number): boolean {
  let skipped = 0
  while (k < s.length && skipped < 3 && RIGHT_SKIP.has(s.charCodeAt(k))) {
    k++
    skipped++
  }
  if (s.charCodeAt(k) === 123) return true
  const tail = s.slice(k, k + 34).toLowerCase()
  for (const r of REASONS) if (tail.startsWith(r)) return true
  return false
}

/** Node SDK style: the record (or a line) starts with `429 Rate limit ...`. */
function lineStartStatus(s: string, i: number): boolean {
  let j = i - 1
  while (j >= 0 && (s.charCodeAt(j) === 32 || s.charCodeAt(j) === 9)) j--
  if (j >= 0 && s.charCodeAt(j) !== 10) return false
  if (s.charCodeAt(i + 3) !== 32) return false
  const c = s.charCodeAt(i + 4)
  return c >= 65 && c <= 90
}

function isWordOrCjk(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || (c >= 0x4e00 && c <= 0x9fff)
}

// --- error classes, explicit codes, logfmt -------------------------------------------------------

const KNOWN_CLASS_RE =
  /\b(RateLimitError|AuthenticationError|PermissionDeniedError|NotFoundError|BadRequestError|InternalServerError|APIConnectionError|APITimeoutError|APIStatusError|UnprocessableEntityError|ConflictError|ServiceUnavailableError|ContextWindowExceededError|ContentPolicyViolationError|APIError|ConnectTimeout|ReadTimeout|ConnectError|ProxyError|SSLError)\b/
const GENERIC_CLASS_RE = /\b([A-Z][A-Za-z0-9]{1,60}(?:Error|Exception))\b/

function findClass(s: string): { name: string; end: number; known: boolean } | null {
  if (s.indexOf("Error") === -1 && s.indexOf("Exception") === -1 && s.indexOf("Timeout") === -1) return null
  const known = KNOWN_CLASS_RE.exec(s)
  if (known !== null) return { name: known[1], end: known.index + known[0].length, known: true }
  const generic = GENERIC_CLASS_RE.exec(s)
  if (generic !== null) return { name: generic[1], end: generic.index + generic[0].length, known: false }
  return null
}

const ERROR_CODE_RE = /\berror[ _-]?code\b["']?[ \t]{0,3}[:=]?[ \t]{0,3}["']?(\d{3,6})\b/i
const REFERENCE_RE = /\berror reference number:?[ \t]{0,3}(\d{3,6})\b/i

function readExplicitCodes(s: string, d: Draft): void {
  const ref = REFERENCE_RE.exec(s)
  if (ref !== null) {
    const n = Number(ref[1])
    setCode(d, n)
    d.explicitCode = true
    setBodyStatus(d, n)
  }
  const ec = ERROR_CODE_RE.exec(s)
  if (ec !== null) {
    const n = Number(ec[1])
    // `Error code: 429` (Python SDK) is the HTTP status, not a code of the service.
    if (n < 400 || n > 599) {
      setCode(d, n)
      d.explicitCode = true
    }
  }
}

/** `message: ...`, `msg="..."`, `reason=...` in prose and key-value logs (not the JSON `"message":`). */
const KV_MESSAGE_RE =
  /(?:^|[\s,;(|])(?:message|msg|reason)[ \t]{0,2}[:=][ \t]{0,2}(?:'((?:[^'\\\n]|\\.){1,1000})'|"((?:[^"\\\n]|\\.){1,1000})"|([^\s'"<{[][^\n]{2,1000}))/i
const LOGFMT_RE = /\b(error_message|error_msg|err_msg|error_type|error_code)=(?:'((?:[^'\\\n]|\\.){0,2000})'|"((?:[^"\\\n]|\\.){0,2000})"|([^\s'"]{1,200}))/g

function readLogfmt(s: string, d: Draft): void {
  if (s.indexOf("error_") === -1 && s.indexOf("err_msg") === -1) return
  LOGFMT_RE.lastIndex = 0
  let m: RegExpExecArray | null
  let n = 0
  while ((m = LOGFMT_RE.exec(s)) !== null && n++ < 16) {
    const value = m[2] ?? m[3] ?? m[4] ?? ""
    if (isNullWord(value)) continue
    switch (m[1]) {
      case "error_message":
      case "error_msg":
      case "err_msg":
        setMessage(d, value)
        break
      case "error_type":
        setErrorType(d, value)
        break
      case "error_code":
        setCode(d, value)
        break
    }
  }
}

// --- transport ---------------------------------------------------------------------------------

const TRANSPORT_CODE_RE =
  /^(?:ECONNREFUSED|ECONNRESET|ECONNABORTED|ETIMEDOUT|ESOCKETTIMEDOUT|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|EPIPE|UND_ERR_[A-Z_]+|CERT_[A-Z_]+|ERR_TLS_[A-Z_]+|ERR_SSL_[A-Z_]+|UNABLE_TO_VERIFY_LEAF_SIGNATURE|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|ERR_PROXY_[A-Z_]+)$/
const TRANSPORT_NAME_RE =
  /\b(?:ECONNREFUSED|ECONNRESET|ECONNABORTED|ETIMEDOUT|ESOCKETTIMEDOUT|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|UND_ERR_[A-Z_]+|CERT_[A-Z_]+|ERR_TLS_[A-Z_]+|ERR_SSL_[A-Z_]+|UNABLE_TO_VERIFY_LEAF_SIGNATURE|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|APIConnectionError|APITimeoutError|ConnectTimeout|ReadTimeout|ConnectError|ProxyError|SSLError|TimeoutError)\b/
/** Transport failure phrases, grouped by first letter so the regex engine checks each position once. */
const TRANSPORT_PHRASE_RE =
  /t(?:imed out|imeout of \d+ ?ms exceeded|emporary failure in name resolution|ls handshake|unneling socket)|c(?:onnection (?:error|refused|reset|aborted)|ertificate (?:verify failed|has expired|is not valid))|s(?:ocket hang up|elf[- ]signed certificate|sl routines)|n(?:ame or service not known|odename nor servname|etwork is unreachable|o route to host)|fetch failed|getaddrinfo|handshake failure|proxy (?:error|authentication required)|unable to verify|wrong version number/i

/** The transport failure named in `s` (ECONNREFUSED, `socket hang up`, TLS, DNS, proxy ...), or null. */
export function transportSignature(s: string): string | null {
  const t = s.length > 16384 ? s.slice(0, 16384) : s
  const m = TRANSPORT_NAME_RE.exec(t) ?? TRANSPORT_PHRASE_RE.exec(t)
  return m === null ? null : m[0]
}

// --- model, request id, endpoint, stream, timestamps -------------------------------------------

const MODEL_KV_RE = /\bmodel(?:_name|Name|_id)?\\?["']?[ \t]{0,3}[:=][ \t]{0,3}(\\?["'`]?)([A-Za-z0-9][\w.:/@+-]{0,127})/i
const MODEL_QUOTED_RE = /\bmodels?[ \t]+[`'"‘“]([^`'"’”\s]{1,128})[`'"’”]/i
/** `for model deepseek-ai/DeepSeek-R1`: an unquoted id after the word, accepted only when it looks like one. */
const MODEL_BARE_RE = /\bmodel[ \t]+([A-Za-z0-9][\w.:/@+-]{0,127})/i
const MODEL_REACHED_RE = /reached for (?!model\b)([A-Za-z0-9][\w.:/-]{0,127}) in organization/
const MODEL_ZH_RE = /模型[ \t]*[:：]?[ \t]*([A-Za-z0-9][\w.:/-]{0,127})/
const MODEL_PATH_RE = /\/(?:engines|deployments)\/([A-Za-z0-9][\w.:-]{0,127})\//
const MODEL_PAREN_RE = /\bError \(([A-Za-z0-9][\w.:/-]{1,127})\)/
const MODEL_GATED: ReadonlyArray<readonly [string, RegExp]> = [
  ["reached for", MODEL_REACHED_RE],
  ["模型", MODEL_ZH_RE],
  ["/engines/", MODEL_PATH_RE],
  ["/deployments/", MODEL_PATH_RE],
  ["Error (", MODEL_PAREN_RE]
]
const REQUEST_ID_RES = [
  /\bx-request-id\\?["']?[ \t]{0,3}[:=][ \t]{0,3}\\?["']?([A-Za-z0-9][\w-]{5,127})/i,
  /\brequest[ _-]?id\b(?:[ \t]+for[ \t]+failed[ \t]+request)?\\?["']?[ \t]{0,3}[:=]?[ \t]{0,3}\\?["'`]?([A-Za-z0-9][\w-]{7,127})/i,
  /\bray id:?[ \t]{0,3}([0-9a-f]{8,32})\b/i
]
const STREAM_RE = /\bstream\\?["']?[ \t]{0,3}[:=][ \t]{0,3}(true|True|false|False)\b/

function readHints(s: string, d: Draft): void {
  if (d.model === null) readModel(s, d)
  if (d.requestId === null && (s.indexOf("equest") !== -1 || s.indexOf("EQUEST") !== -1 || s.indexOf("ay ID") !== -1 || s.indexOf("ay id") !== -1)) {
    for (const re of REQUEST_ID_RES) {
      const m = re.exec(s)
      if (m !== null && /\d/.test(m[1]) && !isNullWord(m[1])) {
        d.requestId = m[1]
        break
      }
    }
  }
  if (d.stream === null && s.indexOf("stream") !== -1) {
    const st = STREAM_RE.exec(s)
    if (st !== null) d.stream = st[1] === "true" || st[1] === "True"
  }
  if (d.errorClass === null) {
    const cls = findClass(s)
    if (cls !== null) setClass(d, cls.name)
  }
  if (d.transportError === null && !hasServiceStatus(d)) d.transportError = transportSignature(s)
}

/**
 * The service itself answered (a status it makes, not a gateway's 502/408/52x/530): a transport
 * failure text elsewhere in the record cannot be the cause, so it is not looked for.
 */
function hasServiceStatus(d: Draft): boolean {
  const s = d.status
  return s !== null && s !== 502 && s !== 408 && s !== 530 && !(s >= 520 && s <= 527)
}

/** The model named in prose; each pattern runs only when its marker is present. */
function readModel(s: string, d: Draft): void {
  if (s.indexOf("odel") !== -1 || s.indexOf("ODEL") !== -1) {
    const kv = MODEL_KV_RE.exec(s)
    if (kv !== null) {
      const v = trimPunct(kv[2])
      if (kv[1] !== "" || isModelLike(v)) setModel(d, v)
    }
    if (d.model === null) {
      const q = MODEL_QUOTED_RE.exec(s) ?? MODEL_BARE_RE.exec(s)
      if (q !== null && isModelLike(trimPunct(q[1]))) setModel(d, trimPunct(q[1]))
    }
    if (d.model !== null) return
  }
  const gated: ReadonlyArray<readonly [string, RegExp]> = MODEL_GATED
  for (const [marker, re] of gated) {
    if (s.indexOf(marker) === -1) continue
    const m = re.exec(s)
    if (m !== null) {
      const v = trimPunct(m[1])
      if (isModelLike(v)) {
        setModel(d, v)
        return
      }
    }
  }
}

const URL_RE = /\b(?:GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)[ \t]+(\S{1,500})|https?:\/\/[^\s"'<>)\]]{1,500}/g
const LLM_PATH_RE =
  /\/v\d+(?:beta\d*|alpha\d*)?\/|\/(?:chat\/)?completions\b|\/embeddings\b|\/audio\/|\/images\/|\/rerank\b|\/models\b|\/responses\b|\/engines\/|\/deployments\/|\/messages\b|[:/]generateContent|\/api\/(?:generate|chat)\b/
const ENDPOINT_RE = /\/v\d+(?:beta\d*|alpha\d*)?\/[A-Za-z0-9._~:@\/-]{1,200}/
const ENDPOINT_SUFFIX_RE = /\/(?:chat\/completions|completions|embeddings|audio\/speech|audio\/transcriptions|images\/generations|rerank|responses)\b/

function notePaths(s: string, d: Draft): void {
  URL_RE.lastIndex = 0
  let m: RegExpExecArray | null
  let n = 0
  while ((m = URL_RE.exec(s)) !== null && n++ < 8) {
    if (m[1] !== undefined) notePath(d, m[1], false)
    else if (LLM_PATH_RE.test(m[0])) notePath(d, m[0], false)
  }
  if (d.endpoint === null) {
    const e = ENDPOINT_RE.exec(s) ?? ENDPOINT_SUFFIX_RE.exec(s)
    if (e !== null) d.endpoint = trimPunct(e[0])
  }
}

/** Record a URL or path seen in the record; `explicit`: given as the endpoint itself. */
function notePath(d: Draft, url: string, explicit: boolean): void {
  d.sawPath = true
  if (LLM_PATH_RE.test(url)) d.sawLlmPath = true
  if (d.endpoint !== null) return
  const e = ENDPOINT_RE.exec(url) ?? ENDPOINT_SUFFIX_RE.exec(url)
  if (e !== null) d.endpoint = trimPunct(e[0])
  else if (explicit) {
    const q = url.search(/[?#]/)
    d.endpoint = (q === -1 ? url : url.slice(0, q)).slice(0, 300)
  }
}

const TS_RE = /(\d{4})[-/.](\d\d)[-/.](\d\d)[T ](\d\d):(\d\d):(\d\d)(?:[.,](\d{1,9}))?[ ]?(Z|[+-]\d\d:?\d\d|UTC|GMT)?/

/** The record's own timestamp, searched near its start. Naive timestamps are UTC. */
function findTimestamp(s: string): string | null {
  const m = TS_RE.exec(s.length > 200 ? s.slice(0, 200) : s)
  return m === null ? null : isoFromMatch(m)
}

function isoFromMatch(m: RegExpExecArray): string | null {
  const y = Number(m[1])
  const mo = Number(m[2])
  const day = Number(m[3])
  const h = Number(m[4])
  const mi = Number(m[5])
  const sec = Number(m[6])
  if (y < 1990 || y > 2200 || mo < 1 || mo > 12 || day < 1 || day > 31 || h > 23 || mi > 59 || sec > 60) return null
  const ms = m[7] === undefined ? 0 : Math.floor(Number(m[7].padEnd(3, "0").slice(0, 3)))
  let t = Date.UTC(y, mo - 1, day, h, mi, Math.min(sec, 59), ms)
  const zone = m[8]
  if (zone !== undefined && zone !== "Z" && zone !== "UTC" && zone !== "GMT") {
    const sign = zone[0] === "-" ? -1 : 1
    const digits = zone.slice(1).replace(":", "")
    t -= sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4))) * 60_000
  }
  return Number.isFinite(t) && t >= 0 && t <= 7258118400000 ? isoFromEpochMs(t) : null
}

let isoSecond = NaN
let isoPrefix = ""

/** `Date#toISOString` for epoch milliseconds, with the `YYYY-MM-DDTHH:MM:SS.` prefix cached per second. */
function isoFromEpochMs(ms: number): string {
  const t = Math.floor(ms)
  const sec = Math.floor(t / 1000)
  if (sec !== isoSecond) {
    const iso = new Date(sec * 1000).toISOString()
    if (iso.length !== 24) return new Date(t).toISOString()
    isoSecond = sec
    isoPrefix = iso.slice(0, 20)
  }
  const frac = t - sec * 1000
  // joined, not concatenated: a flat string, which every later reader of the instant
  // (instantMs, five times per event) scans ~4x faster than a concatenation's rope
  return [isoPrefix, frac < 10 ? "00" : frac < 100 ? "0" : "", frac, "Z"].join("")
}

/** Already `YYYY-MM-DDTHH:MM:SS.sssZ` (what pino, winston and most shippers write). */
function isCanonicalIso(v: string): boolean {
  if (v.length !== 24 || v.charCodeAt(23) !== 90 || v.charCodeAt(10) !== 84 || v.charCodeAt(19) !== 46) return false
  if (v.charCodeAt(4) !== 45 || v.charCodeAt(7) !== 45 || v.charCodeAt(13) !== 58 || v.charCodeAt(16) !== 58) return false
  for (const i of ISO_DIGITS) if (!isDigit(v.charCodeAt(i))) return false
  const two = (i: number): number => (v.charCodeAt(i) - 48) * 10 + v.charCodeAt(i + 1) - 48
  const month = two(5)
  const day = two(8)
  return month >= 1 && month <= 12 && day >= 1 && day <= 31 && two(11) <= 23 && two(14) <= 59 && two(17) <= 59
}

const ISO_DIGITS = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18, 20, 21, 22]

/** A JSON time value: epoch seconds / milliseconds / microseconds, or a date string. */
function timeValue(v: unknown): string | null {
  if (typeof v === "number" && Number.isFinite(v) && v > 0) {
    const ms = v > 1e14 ? v / 1000 : v > 1e11 ? v : v * 1000
    if (ms < 631152000000 || ms > 7258118400000) return null
    return isoFromEpochMs(ms)
  }
  if (typeof v !== "string" || v.length < 8 || v.length > 64) return null
  if (isCanonicalIso(v)) return v
  if (/^\d+(?:\.\d+)?$/.test(v)) return timeValue(Number(v))
  const m = TS_RE.exec(v)
  if (m !== null) return isoFromMatch(m)
  const t = Date.parse(v)
  return Number.isNaN(t) ? null : new Date(t).toISOString()
}

// --- walking JSON objects for hints -------------------------------------------------------------

const MODEL_KEYS = new Set(["model", "model_name", "modelName", "gen_ai.request.model", "llm.model"])
const REQUEST_ID_KEYS = new Set(["requestId", "request_id", "x-request-id", "xRequestId", "x_request_id", "request-id", "apim-request-id"])
const URL_KEYS = new Set(["url", "path", "endpoint", "uri", "originalUrl", "http.url", "http.target", "url.full", "url.path", "target"])
const SKIP_KEYS = new Set(["messages", "stack", "headers_sent", "input", "prompt", "content"])
const MAX_HINT_NODES = 128

function scanObjectHints(root: Record<string, unknown>, d: Draft): void {
  const queue: Array<Record<string, unknown>> = [root]
  let visited = 0
  for (let qi = 0; qi < queue.length && visited < MAX_HINT_NODES; qi++) {
    const o = queue[qi]
    visited++
    for (const k in o) {
      const v = o[k]
      if (v === null || v === undefined) continue
      if (typeof v === "object") {
        if (!Array.isArray(v) && !SKIP_KEYS.has(k) && queue.length < MAX_HINT_NODES) queue.push(v as Record<string, unknown>)
        continue
      }
      if (MODEL_KEYS.has(k)) {
        if (d.model === null) setModel(d, v)
      } else if (REQUEST_ID_KEYS.has(k)) {
        setRequestId(d, v)
      } else if (URL_KEYS.has(k)) {
        if (typeof v === "string" && v.length > 0 && (v.charCodeAt(0) === 47 || v.startsWith("http"))) notePath(d, v, false)
      } else if (k === "stream") {
        if (typeof v === "boolean" && d.stream === null) d.stream = v
      } else if (typeof v === "string" && v.startsWith("http") && LLM_PATH_RE.test(v)) {
        notePath(d, v, false)
      }
    }
  }
}

function serviceOf(o: Record<string, unknown>): string | null {
  for (const k of SERVICE_KEYS) {
    const v = o[k]
    if (typeof v === "string" && v !== "" && v.length <= 200) return v
    if (k === "service" && isRecord(v)) {
      const name = str(v["name"])
      if (name !== null) return name
    }
  }
  return null
}

/** Vector / Fluent Bit Kubernetes metadata: the pod's `app` label, else the container name. */
function kubernetesServiceOf(o: Record<string, unknown>): string | null {
  const k8s = o["kubernetes"]
  if (!isRecord(k8s)) return null
  for (const labelsKey of ["labels", "pod_labels"]) {
    const labels = k8s[labelsKey]
    if (isRecord(labels)) {
      const app = str(labels["app.kubernetes.io/name"]) ?? str(labels["app"])
      if (app !== null) return app
    }
  }
  return str(k8s["container_name"])
}

// --- message -----------------------------------------------------------------------------------

/** Timestamp, level, `[tags]` and a Python-style `logger.name - ` at the start of a log line. */
const LOG_PREFIX_RE =
  /^[\s|]*(?:\[?\d{4}[-/.]\d\d[-/.]\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d{1,9})?(?:Z|[+-]\d\d:?\d\d)?\]?|\[?\d\d:\d\d:\d\d(?:[.,]\d{1,9})?\]?)?[\s|:-]*(?:\[?(?:ERROR|ERR|WARNING|WARN|INFO|DEBUG|CRITICAL|FATAL|TRACE)\]?(?=[\s:|[-])|\[(?:error|warning|warn|info|debug)\]|(?:error|warning|warn|info|debug):)?[\s|:-]*(?:\[[^\]\n]{1,60}\][ \t]*){0,3}(?:[\w.$]{1,80}[ \t]+-[ \t]+(?![\s{]))?/
const LEADING_STATUS_RE = /^[45]\d\d[ \t]+(?=[A-Z])/
const REPEATED_CLASS_RE = /^[A-Za-z_][\w.]{0,80}(?:Error|Exception):[ \t]+/

function deriveMessage(s: string, cls: { end: number } | null, statusAt: number): string | null {
  if (cls !== null && s.charCodeAt(cls.end) === 58 /* : */) {
    let rest = restOfLine(s, cls.end + 1).trim()
    // `RateLimitError: litellm.RateLimitError: Rate limit ...`: drop the repeated class names.
    for (let n = 0; n < 3; n++) {
      const again = REPEATED_CLASS_RE.exec(rest)
      if (again === null) break
      rest = rest.slice(again[0].length)
    }
    rest = rest.replace(LEADING_STATUS_RE, "")
    if (rest !== "") return rest
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
    const line = restOfLine(s, start).replace(LOG_PREFIX_RE, "").trim().replace(LEADING_STATUS_RE, "")
    if (line !== "") return line + wrappedTail(s, line, start + restOfLine(s, start).length + 1)
  }
  let from = 0
  for (let lines = 0; lines < 8 && from < s.length; lines++) {
    const nl = s.indexOf("\n", from)
    const line = s.slice(from, nl === -1 ? s.length : nl).replace(LOG_PREFIX_RE, "").trim()
    if (line !== "") return nl === -1 ? line : line + wrappedTail(s, line, nl + 1)
    if (nl === -1) break
    from = nl + 1
  }
  return null
}

/**
 * The hard-wrapped rest of a message line: lines after a trailing backslash, or indented lines
 * that continue a sentence in lower case (not stack frames or dumps).
 */
function wrappedTail(s: string, line: string, from: number): string {
  let tail = ""
  let prev = line
  for (let n = 0; n < 8 && from < s.length; n++) {
    const nl = s.indexOf("\n", from)
    const next = s.slice(from, nl === -1 ? s.length : nl)
    const backslash = prev.endsWith("\\")
    if (!backslash && !/^[ \t]+[a-z]/.test(next)) break
    if (!backslash && (/^\s*(?:at|File)\s/.test(next) || /[.:;!?]$/.test(prev))) break
    tail += "\n" + next
    prev = next.trimEnd()
    if (nl === -1) break
    from = nl + 1
  }
  return tail
}

function restOfLine(s: string, from: number): string {
  const nl = s.indexOf("\n", from)
  return s.slice(from, nl === -1 ? Math.min(s.length, from + 2000) : nl)
}

/** Join hard-wrapped lines, collapse whitespace, cut to the message limit. */
export function normalizeMessage(m: string): string {
  let s = m.length > 4 * MESSAGE_MAX ? m.slice(0, 4 * MESSAGE_MAX) : m
  if (s.indexOf("\n") !== -1 || s.indexOf("\r") !== -1) {
    s = s.replace(/\\\r?\n/g, "").replace(/[ \t]*\r?\n[ \t]*/g, " ")
  }
  s = s.trim()
  if (s.length > MESSAGE_MAX) {
    let end = MESSAGE_MAX
    const c = s.charCodeAt(end - 1)
    if (c >= 0xd800 && c <= 0xdbff) end--
    s = s.slice(0, end)
  }
  return s
}

function decodeEntities(s: string): string {
  return s
    .replace(/&amp;/g, "&")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&nbsp;/g, " ")
}

// --- setters (first writer wins) ----------------------------------------------------------------

function setStatus(d: Draft, status: number | null, text?: string): void {
  if (d.status === null && status !== null) {
    d.status = status
    if (d.explain !== null) note(d, "status", text ?? String(status))
  }
}

function setBodyStatus(d: Draft, n: number): void {
  if (d.bodyStatus === null && Number.isInteger(n) && n >= 400 && n <= 599) {
    d.bodyStatus = n
    if (d.explain !== null) d.explain.bodyStatus = { from: d.from, text: String(n) }
  }
}

function setCode(d: Draft, v: unknown): void {
  if (d.code !== null) return
  d.code = normCode(v)
  if (d.explain !== null && d.code !== null) note(d, "code", String(d.code))
}

/** Evidence of a field, when asked for: the extractor at work and the text it read. */
function note(d: Draft, field: keyof EvidenceMap, text: string): void {
  if (d.explain !== null) d.explain[field] = { from: d.from, text: span(text) }
}

/** At most 200 characters (the texts are already redacted). */
function span(text: string): string {
  return text.length > 200 ? text.slice(0, 199) + "…" : text
}

/** The line around index `i` of `s` (the text a status was read from). */
function lineAround(s: string, i: number): string {
  const start = s.lastIndexOf("\n", i) + 1
  const nl = s.indexOf("\n", i)
  const line = s.slice(start, nl === -1 ? s.length : nl).trim()
  if (line.length <= 200) return line
  const from = Math.max(0, i - start - 80)
  return line.slice(from, from + 200)
}

/** The evidence of the fields the event carries (the body status was only a candidate). */
function finalEvidence(e: EvidenceMap): Record<ExplainedField, Evidence | null> {
  return { status: e.status ?? null, code: e.code ?? null, message: e.message ?? null, model: e.model ?? null, provider: e.provider ?? null }
}

/** A message longer than this is cut (with `…`): it is a reason, not a payload. */
export const MESSAGE_MAX_CHARS = 4096

function setMessage(d: Draft, v: unknown): void {
  if (d.message !== null || typeof v !== "string") return
  const m = normalizeMessage(v.length > 4 * MESSAGE_MAX_CHARS ? v.slice(0, 4 * MESSAGE_MAX_CHARS) : v)
  if (m !== "" && !isNullWord(m)) {
    d.message = m.length > MESSAGE_MAX_CHARS ? m.slice(0, MESSAGE_MAX_CHARS - 1) + "…" : m
    if (d.explain !== null) note(d, "message", d.message)
  }
}

function setErrorType(d: Draft, v: string): void {
  if (d.errorType === null && v !== "" && !isNullWord(v) && v.length <= 100) d.errorType = v
}

function setClass(d: Draft, name: string): void {
  const bare = name.slice(name.lastIndexOf(".") + 1)
  const known = KNOWN_CLASS_RE.test(bare)
  if (d.errorClass === null || (known && !d.knownClass)) {
    d.errorClass = bare
    d.knownClass = known
  }
}

function setModel(d: Draft, v: unknown): void {
  if (d.model !== null || typeof v !== "string") return
  const m = v.trim()
  if (m !== "" && m.length <= 200 && !isNullWord(m) && m !== "<redacted>") {
    d.model = m
    if (d.explain !== null) note(d, "model", m)
  }
}

function setRequestId(d: Draft, v: unknown): void {
  if (d.requestId !== null) return
  if (typeof v === "string" && v.trim() !== "" && v.length <= 200 && !isNullWord(v)) d.requestId = v.trim()
  else if (typeof v === "number" && Number.isFinite(v)) d.requestId = String(v)
}

// --- small helpers ------------------------------------------------------------------------------

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v)
}

function str(v: unknown): string | null {
  return typeof v === "string" && v.trim() !== "" ? v : null
}

function getPath(o: Record<string, unknown>, path: ReadonlyArray<string>): unknown {
  let cur: unknown = o
  for (const k of path) {
    if (!isRecord(cur)) return undefined
    cur = cur[k]
  }
  return cur
}

function toStatus(v: unknown): number | null {
  let n: number
  if (typeof v === "number") n = v
  else if (typeof v === "string" && /^\s*\d{3}\s*$/.test(v)) n = Number(v)
  else return null
  return Number.isInteger(n) && n >= 100 && n <= 599 ? n : null
}

function normCode(v: unknown): number | string | null {
  if (typeof v === "number") return Number.isFinite(v) ? v : null
  if (typeof v !== "string") return null
  const s = v.trim()
  if (s === "" || isNullWord(s) || s.length > 100) return null
  if (/^-?\d{1,9}$/.test(s)) return Number(s)
  return s
}

function isNullWord(s: string): boolean {
  switch (s) {
    case "None":
    case "null":
    case "undefined":
    case "nil":
    case "none":
    case "NULL":
      return true
    default:
      return false
  }
}

function isModelLike(v: string): boolean {
  return v.length >= 2 && /[A-Za-z]/.test(v) && /[\d/\-.:]/.test(v)
}

function trimPunct(v: string): string {
  return v.replace(/[.,;:)\]'"`]+$/, "")
}

/** Cut `text` to at most `maxBytes` UTF-8 bytes, on a character boundary. */
export function cutUtf8(text: string, maxBytes: number): string {
  if (text.length * 3 <= maxBytes) return text
  let bytes = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    let w: number
    let units = 1
    if (c < 0x80) w = 1
    else if (c < 0x800) w = 2
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      w = 4
      units = 2
    } else w = 3
    if (bytes + w > maxBytes) return text.slice(0, i)
    bytes += w
    i += units - 1
  }
  return text
}
