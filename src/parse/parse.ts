/**
 * One record of log text (or one webhook object) -> ParsedFailure (CONTRACT sections 3 and 6):
 * the entry points and the resolver.
 *
 * Order of work: a cheap pre-filter (prefilter.ts; most log lines stop there), then redaction of
 * secrets and chat messages, then the extractors (extract/: one per shape family — JSON log
 * objects, API error bodies, HTTP dumps, HTML pages, SDK exception texts, statuses in prose,
 * logfmt, free text, hints), which write what they find into a draft (draft.ts) with where they
 * found it. Every field is first-writer-wins, and the extractors run from the most specific
 * source (explicit keys, the error body) to the least (the surrounding prose). Then the resolver
 * here decides once: a failed call or not, and why not. Never throws.
 */
import type { ParseResult } from "./ParsedFailure.js"
import { redact, redactValue, stripMessages } from "./redact.js"
import { DEFAULT_MAX_RECORD_CHARS } from "./assemble.js"
import { firstNonSpace, looksLikeObject } from "./loose-json.js"
import { categoryFromWording } from "../catalog/wording.js"
import { codeNamedByClass, providerOfHosts, providerOfMarkers, providerOfText, recognises } from "../catalog/index.js"
import { LiteralGate } from "../catalog/literalGate.js"
import { type Draft, cutUtf8, finalEvidence, isDigit, isRecord, newDraft, normalizeMessage, note, setCode, setMessage, setModel, setRequestId, setStatus, span, str, toStatus } from "./draft.js"
import { readBodyValue, readMessageValue } from "./extract/errorBody.js"
import { FAILURE_LINE_RE, readText } from "./extract/freeText.js"
import { notePath, readHints } from "./extract/hints.js"
import { readLogObject } from "./extract/jsonLog.js"
import { isHttpClientTransport, transportSignature } from "./extract/transport.js"
import { findStatus } from "./extract/statusText.js"
import { hasFailureSignal } from "./prefilter.js"
import { unwrapRecord } from "./unwrap.js"

export { hasFailureSignal } from "./prefilter.js"
import { resolveTime, timeValue } from "./time.js"

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

const IGNORED: Readonly<Record<IgnoreReason, ParseResult>> = Object.freeze({
  empty: Object.freeze({ _tag: "Ignored", reason: "empty" }),
  "no failure signal": Object.freeze({ _tag: "Ignored", reason: "no failure signal" }),
  "status < 400": Object.freeze({ _tag: "Ignored", reason: "status < 400" }),
  "not an API call": Object.freeze({ _tag: "Ignored", reason: "not an API call" }),
  unreadable: Object.freeze({ _tag: "Ignored", reason: "unreadable" })
})

// ---------------------------------------------------------------------------------------------
// Entry points

/** Parse one record of log text. */
export function parseRecord(text: string, opts?: ParseOptions): ParseResult {
  const r = redactRecord(text, opts)
  return "_tag" in r ? r : parseRedacted(r, opts)
}

/** A record with its secrets and chat messages taken out: what every later step reads. */
export interface RedactedRecord {
  readonly text: string
  /** The number of chat `messages` taken out, when the record showed a request. */
  readonly messagesCount: number | null
}

/**
 * The first half of `parseRecord`: the empty record and the pre-filter, then redaction. Everything
 * after it reads only the redacted text (the record memo keys its verdicts on that text).
 */
export function redactRecord(text: string, opts?: ParseOptions): RedactedRecord | ParseResult {
  try {
    if (firstNonSpace(text) === -1) return IGNORED.empty
    if (opts?.prefiltered !== true && !hasFailureSignal(text)) return IGNORED["no failure signal"]
    const stripped = stripMessages(redact(text))
    return { text: stripped.text, messagesCount: stripped.count }
  } catch {
    return IGNORED.unreadable
  }
}

/** The second half of `parseRecord`: the extractors and the resolver over the redacted record. */
export function parseRedacted(r: RedactedRecord, opts?: ParseOptions): ParseResult {
  try {
    const clean = r.text
    const d = newDraft()
    if (opts?.explain === true) d.explain = {}
    d.messagesCount = r.messagesCount
    d.truncated = opts?.truncated === true
    const body = unwrapRecord(clean)
    readText(body, d, 0)
    return conclude(d, embeddedRecord(body, d) ?? body, clean)
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

    const sent = toStatus(o["status"]) ?? toStatus(o["statusCode"])
    // CONTRACT section 6: a structured record whose sender says the status was below 400 is a
    // successful call, counted and not stored, whatever its body holds
    if (sent !== null && sent < 400 && raw === null) return IGNORED["status < 400"]
    setStatus(d, sent)
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
    const body = raw === null ? null : unwrapRecord(raw)
    if (body !== null) readText(body, d, 0)
    readLogObject(o, d, 0)
    return body !== null && raw !== null ? conclude(d, body, raw) : conclude(d, JSON.stringify(o))
  } catch {
    return IGNORED.unreadable
  }
}

/**
 * A JSON log line that carries a whole multi-line record in its `log` / `msg` / `message` (Docker's
 * json-file, a collector's envelope, a logger given a traceback): that text, which the decisions
 * made on the record as a whole (retries that ended well, a status named by the client, the
 * record's other failure lines) read as if it had been logged bare; null for any other record.
 */
function embeddedRecord(body: string, d: Draft): string | null {
  if (d.timeObjects.length === 0 || body.charCodeAt(0) !== 123 || body.indexOf("\\n") === -1) return null
  const o = d.timeObjects[0]!
  for (const k of ["log", "msg", "message"]) {
    const v = o[k]
    if (typeof v === "string" && v.indexOf("\n") !== -1 && v.indexOf("\n") < v.length - 1) return v
  }
  return null
}

function isRawMessage(o: Record<string, unknown>): boolean {
  return o["status"] === undefined && o["body"] === undefined && o["code"] === undefined && o["error"] === undefined
}

// ---------------------------------------------------------------------------------------------
// The resolver: a failed call or not

/**
 * The Stainless Java SDKs (openai-java, anthropic-sdk-java) name their exceptions as AWS names its
 * error codes (`com.openai.errors.InternalServerException: 500: …`): there the class is no code.
 */
function stainlessJavaClass(d: Draft): boolean {
  for (const h of d.providerHints) if (h.startsWith("com.openai.") || h.startsWith("com.anthropic.")) return true
  return false
}

/** Chat front-ends that only call model APIs: an error they report is an API call's (`403: Open WebUI: Server Connection Error`). */
const LLM_UI_SRC = "open ?web ?ui|lobe ?chat|nextchat|librechat|anythingllm|cherry ?studio"
const LLM_CONTEXT_RE = new RegExp(
  "openai|anthropic|litellm|\\bllm|\\bgpt|claude|gemini|generative ?ai|genai|调用 ?ai\\b|bedrock|deepseek|qwen|siliconflow|mistral|groq|ollama|dashscope|moonshot|zhipu|\\/v\\d+\\/|completions|embeddings|\\bchat\\b|\\bmodels?\\b|\\bapi\\b|RateLimitError|APIConnectionError|APITimeoutError|模型|" +
    // LLM frameworks name themselves in class and logger names (`dev.langchain4j.exception.TimeoutException`)
    "langchain|llama_?index|semantic ?kernel|springframework\\.ai|" + LLM_UI_SRC,
  "i"
)

const LLM_WORDS_RE = new RegExp(
  "openai|anthropic|litellm|\\bllm|\\bgpt|claude|gemini|deepseek|qwen|siliconflow|mistral|groq|ollama|dashscope|completions|embeddings|\\bmodels?\\b|模型|" +
    // the Chinese models' product names (`讯飞星火api连接异常`)
    "星火|文心|通义|千问|智谱|豆包|混元|讯飞|" + LLM_UI_SRC,
  "i"
)

/** An LLM call's failure in an application's words: the call named, then the failure, on one line. */
const LLM_CALL_ERROR_RE =
  /\b(?:llm|completions?|inference|model (?:request|call|invocation|api))\b[^\n]{0,40}?\b(?:error|failed|failure|empty)\b|\b(?:error|failed|failure)\b[^\n]{0,24}?\b(?:llm|completions?|stream response|(?:calling|running|invoking|querying) (?:the )?model)\b|\b(?:error|failure) (?:from|calling|returned by) (?:the )?(?:openai|anthropic|claude|gemini|deepseek|mistral|groq|ollama|qwen|grok)\b|(?:\bllm|gpt|\bai|openai|claude|gemini|deepseek|模型)[ \t]{0,2}(?:api[ \t]{0,2})?(?:请求|调用|接口)(?:失败|异常|出错)/i
const SUCCESS_RE = /\b(?:success(?:fully)?|succeeded|completed|resolved|recovered)\b/i

/** An exception class, then its message: `XyzError: …`, `com.acme.FooException: …` (leading a line or after a space). */
const EXCEPTION_CLASS_LINE_RE = /(?:^|\s)[ \t]{0,8}(?:Exception in thread "[^"\n]{0,80}" |Caused by: )?(?:[A-Za-z_][\w]{0,60}\.){0,8}[A-Z]\w{0,60}(?:Error|Exception)(?:\[[^\]\n]{0,40}\])?:[ \t]/

/** `text`: what was parsed; `sampleText`: the record as it is stored (colours and prefixes kept). */
function conclude(d: Draft, text: string, sampleText: string = text): ParseResult {
  resolveStatus(d, text)
  if (d.code === null && d.errorClass !== null && codeNamedByClass(d.errorClass) !== null && !stainlessJavaClass(d)) setCode(d, d.errorClass)
  const ignored = decide(d, text)
  if (ignored !== null) return d.explain === null ? ignored : { ...ignored, evidence: finalEvidence(d.explain) }
  let provider = d.provider
  let providerWeak = false
  if (provider === null) {
    // hosts anywhere; markers in module paths and logger names, and in the whole text of a
    // multi-line record (stack frames name the SDK). The message is looked at by the
    // classifier, whose verdicts are remembered by message: a storm pays for it once.
    // (the record as logged: a syslog header's program, `ollama[3974]:`, names the server)
    const told =
      providerOfHosts(sampleText) ??
      (d.providerHints.length > 0 ? providerOfMarkers(d.providerHints.join("\n")) : null) ??
      (sampleText.indexOf("\n") !== -1 || sampleText !== text ? providerOfMarkers(sampleText.length > 8192 ? sampleText.slice(0, 8192) : sampleText) : null)
    if (told !== null) {
      provider = told.provider
      providerWeak = told.weak === true
      if (d.explain !== null) d.explain.provider = { from: told.via === "host" ? "api-host" : "provider-marker", text: span(told.text) }
    }
  }
  if (d.occurredAt === null) d.occurredAt = resolveTime(d)
  if (d.service === null) d.service = d.serviceFallback
  return {
    _tag: "Failure",
    failure: {
      status: d.status,
      phraseStatus: d.status === null ? d.phraseStatus : null,
      code: d.code,
      message: d.message,
      model: label(d.model),
      requestId: label(d.requestId),
      occurredAt: d.occurredAt,
      service: label(d.service),
      endpoint: label(d.endpoint),
      stream: d.stream,
      bodyNotJson: d.bodyNotJson,
      errorType: d.errorType,
      errorClass: d.errorClass,
      transportError: d.transportError,
      limitDetail: d.limitDetail,
      otherLines: text.indexOf("\n") === -1 ? null : otherFailureLines(text, d.message),
      messagesCount: d.messagesCount,
      truncated: d.truncated,
      provider,
      ...(providerWeak ? { providerWeak: true } : {})
    },
    sample: cutUtf8(sampleText, SAMPLE_MAX_BYTES),
    ...(d.explain === null ? {} : { evidence: finalEvidence(d.explain) })
  }
}

/** A stack frame (`at f (file:1:2)`, `File "x.py", line 3`) or a source line under one. */
const FRAME_LINE_RE = /^[ \t]*(?:at[ \t]|File[ \t]"|\.\.\.[ \t]\d|\^)/

/** ParsedFailure.otherLines: the lines of a multi-line record besides its message that say something failed. */
function otherFailureLines(text: string, message: string | null): string | null {
  let out = ""
  let kept = 0
  let from = 0
  const end = Math.min(text.length, 16384)
  for (let n = 0; n < 200 && from < end && kept < 8; n++) {
    const nl = text.indexOf("\n", from)
    const line = text.slice(from, nl === -1 || nl > end ? end : nl)
    from = nl === -1 ? end : nl + 1
    if (line.length < 4 || line.length > 1024 || FRAME_LINE_RE.test(line) || !FAILURE_LINE_RE.test(line)) continue
    if (message !== null && (line.indexOf(message) !== -1 || message.indexOf(line.trim()) !== -1)) continue
    if (out.length + line.length > 1024) break
    out += (out === "" ? "" : "\n") + line.trim()
    kept++
  }
  return out === "" ? null : out
}

const CONTROL_RE = /[\u0000-\u001f\u007f]/
const CONTROLS_RE = /[\u0000-\u001f\u007f]+/g

/**
 * A value that becomes a label (metrics, the page, alert labels): without control characters (a
 * NUL from a sender's model name reached /metrics and the HTML page).
 */
function label(v: string | null): string | null {
  if (v === null || !CONTROL_RE.test(v)) return v
  const clean = v.replace(CONTROLS_RE, "")
  return clean === "" ? null : clean
}

/** A body's code that says something failed (not `0`, `200`, `"ok"`, `"success"`). */
function isErrorCode(code: number | string | null): boolean {
  if (code === null) return false
  if (typeof code === "number") return code !== 0 && (code < 200 || code >= 400)
  return !/^(?:0|200|ok|success|succeeded)$/i.test(code.trim())
}

/**
 * The status the record's failure shows, where the extractors left none or a success: the body's
 * own status; a status inside the body's message (`"message": "… Error code: 503 - {…}"`); in a
 * multi-line record that logged a success (an access-log line) before the failure, the failure's.
 */
/**
 * Forms only an HTTP client or SDK prints for the answer it received itself: httpx's `Client error
 * '404 Not Found' for url`, Azure.Core's `Status: 401 (Unauthorized)` above its `ErrorCode:`,
 * openai-python's `Error code: 429 - {`. Where an application or relay wraps that failure in its
 * own status (`status_code: 500, body: {'detail': "Client error '404 …`), the client's is the call's.
 */
const HTTPX_UPSTREAM_RE = /(?:Client|Server) error '([45]\d\d) [^'\n]{1,60}' for url '/y
const AZURE_UPSTREAM_RE = /Status: ([45]\d\d) \([A-Za-z ]{2,40}\)[ \t]*\r?\n[ \t>]{0,4}ErrorCode: /y

function upstreamStatus(text: string): number | null {
  const end = Math.min(text.length, 16384)
  // openai-python's `Error code: 429 - {`: compared in place (a storm's every line has it)
  const e = text.indexOf("Error code: ")
  if (e !== -1 && e < end) {
    const d0 = text.charCodeAt(e + 12)
    if ((d0 === 52 || d0 === 53) && isDigit(text.charCodeAt(e + 13)) && isDigit(text.charCodeAt(e + 14)) && text.startsWith(" - ", e + 15)) {
      const b = text.charCodeAt(e + 18)
      if (b === 123 || b === 91) return Number(text.slice(e + 12, e + 15))
    }
  }
  const h = text.indexOf(" error '")
  if (h !== -1 && h < end && h >= 6) {
    // `Client error '` / `Server error '`: both words six letters
    HTTPX_UPSTREAM_RE.lastIndex = h - 6
    const m = HTTPX_UPSTREAM_RE.exec(text)
    if (m !== null) return Number(m[1])
  }
  for (let st = text.indexOf("Status: "); st !== -1 && st < end; st = text.indexOf("Status: ", st + 8)) {
    // at a line's start, after a quote mark or indentation
    let j = st - 1
    while (j >= 0 && (text.charCodeAt(j) === 32 || text.charCodeAt(j) === 9 || text.charCodeAt(j) === 62)) j--
    if (j >= 0 && text.charCodeAt(j) !== 10) continue
    AZURE_UPSTREAM_RE.lastIndex = st
    const m = AZURE_UPSTREAM_RE.exec(text)
    if (m !== null) return Number(m[1])
  }
  return null
}

function resolveStatus(d: Draft, text: string): void {
  if (d.status !== null && d.status >= 400) {
    const up = upstreamStatus(text)
    if (up !== null && up !== d.status) {
      d.status = up
      if (d.explain !== null) note(d, "status", String(up))
    }
  }
  if (d.status === null && d.bodyStatus !== null) {
    d.status = d.bodyStatus
    if (d.explain !== null && d.explain.bodyStatus !== undefined) d.explain.status = d.explain.bodyStatus
  }
  if (d.status === null && d.message !== null && d.message.length <= 4096) {
    const found = findStatus(d.message, -1, -1)
    if (found !== null && found.index >= 0) {
      d.from = "error-body"
      setStatus(d, found.status, d.message)
    }
  } else if (d.status !== null && d.status < 400 && text.indexOf("\n") !== -1) {
    const later = findStatus(text.length > 16384 ? text.slice(0, 16384) : text, -1, -1)
    if (later !== null && later.index >= 0) {
      d.from = "status-text"
      d.status = null
      setStatus(d, later.status, text.slice(Math.max(0, later.index - 60), later.index + 40))
    }
  }
}

/**
 * A record that logged the HTTP exchange as a success (`HTTP Request: POST … "HTTP/1.1 200 OK"`)
 * and then, on its later lines, the call's failure: a client library's exception (LiteLLM's
 * `APIError` for a 200 it could not read) or failure wording (Qianfan's daily limit in a 200 body).
 */
function failsAfterSuccessLine(d: Draft, text: string): boolean {
  const nl = text.indexOf("\n")
  if (nl === -1 || nl === text.length - 1) return false
  if (d.knownClass && d.errorClass !== null) return true
  const rest = text.length - nl > 8192 ? text.slice(nl + 1, nl + 8193) : text.slice(nl + 1)
  return categoryFromWording(rest) !== null || recognises({ code: d.code, errorType: d.errorType, errorClass: d.errorClass, text: rest, provider: d.provider ?? providerOfText(text.length > 8192 ? text.slice(0, 8192) : text)?.provider ?? null })
}

/**
 * Hosts of APIs that LLM applications call besides the LLM's: a plugin updater's GitHub API rate
 * limit, a bot's Telegram or Slack API error. A record that names only such a host is not a call
 * of the LLM API.
 */
const OTHER_API_HOSTS: ReadonlyArray<RegExp> = [
  /\bapi\.github\.com\b/i, /\braw\.githubusercontent\.com\b/i, /\buploads\.github\.com\b/i, /\bapi\.telegram\.org\b/i,
  /\bslack\.com\/api\b/i, /\bhooks\.slack\.com\b/i, /\bdiscord(?:app)?\.com\/api\b/i, /\bgraph\.facebook\.com\b/i,
  /\bapi\.twitter\.com\b/i, /\bpypi\.org\b/i, /\bregistry\.npmjs\.org\b/i, /\bregistry-1\.docker\.io\b/i,
  // the documentation_url of every GitHub REST API error body
  /\bdocs\.github\.com\/rest\b/i,
  // the tools agents call besides the model: web search, machine translation, model registries
  /\bserpapi\.com\b/i, /\bapi\.tavily\.com\b/i, /\bgoogle\.serper\.dev\b/i, /\bapi\.search\.brave\.com\b/i,
  /\bapi\.bing\.microsoft\.com\b/i, /\bcustomsearch\.googleapis\.com\b/i, /\bapi(?:-free)?\.deepl\.com\b/i, /\bapi\.ngc\.nvidia\.com\b/i,
  /\b(?:docs\.)?upstash\.(?:com|io)\b/i,
  // the chat platforms' bot SDKs, whose errors an LLM bot logs beside its model calls
  /\bGrammyError\b/, /\bTelegramError\b/, /\bDiscordAPIError\b/, /\bSlackApiError\b/
]
/** OTHER_API_HOSTS behind a literal gate: one pass, then only those whose host is there are run. */
const otherApiHosts = new LiteralGate(OTHER_API_HOSTS)

/** httpx's INFO line as openai-python and others log every attempt: `HTTP Request: POST <url> "HTTP/1.1 200 OK"`. */
const HTTPX_LINE_RE = /HTTP Request: [A-Z]{3,7} [^\s"]{1,500} "HTTP\/[\d.]{1,3} (\d{3})[^"\n]{0,60}"/g

/** A multi-line record whose last httpx line is a success with no failure after it: retries that ended well. */
function succeededAfterRetries(text: string): boolean {
  if (text.indexOf("HTTP Request: ") === -1 || text.indexOf("\n") === -1) return false
  const head = text.length > 16384 ? text.slice(0, 16384) : text
  HTTPX_LINE_RE.lastIndex = 0
  let last: RegExpExecArray | null = null
  let m: RegExpExecArray | null
  for (let n = 0; n < 64 && (m = HTTPX_LINE_RE.exec(head)) !== null; n++) last = m
  if (last === null || Number(last[1]) >= 400) return false
  return !FAILURE_LINE_RE.test(head.slice(last.index + last[0].length))
}

const HUB_DOWNLOAD_RE = /\bhuggingface\.co\/[^\s"'<>]{1,200}\/resolve\//

/** Hugging Face's inference endpoints: a record naming one is an inference call, whatever Hub URL it also shows. */
const HF_INFERENCE_RE = /api-inference\.|router\.huggingface/

/** The Hugging Face Hub's own API (model metadata, revisions, whoami), as urllib3 logs it: no inference call. */
const HUB_API_RE = /\bhuggingface\.co(?::443)?\b[^\n]{0,16}?"?(?:GET|HEAD|POST) \/api\/(?:models|datasets|spaces|whoami)\b/

/** Null when the draft is a failed call, else the Ignored result saying why not. */
function decide(d: Draft, text: string): ParseResult | null {
  if (d.message !== null && !d.messageHinted) readHints(d.message, d)
  if (d.htmlSeen && !d.jsonBody) d.bodyNotJson = true
  if (
    !d.sawLlmPath && d.model === null && d.provider === null &&
    otherApiHosts.test(text.length > 8192 ? text.slice(0, 8192) : text) && !LLM_WORDS_RE.test(text) && providerOfHosts(text) === null
  ) {
    return IGNORED["not an API call"]
  }
  // OpenAI's billing dashboard (`GET /dashboard/billing/credit_grants`, polled by chat UIs for a balance) is not an LLM call
  if (text.indexOf("/dashboard/billing/") !== -1 && !d.sawLlmPath) return IGNORED["not an API call"]
  // a model file downloaded from the Hugging Face Hub (`huggingface.co/<repo>/resolve/main/config.json`) is not an inference call
  if (text.indexOf("/resolve/") !== -1 && HUB_DOWNLOAD_RE.test(text) && !d.sawLlmPath && !HF_INFERENCE_RE.test(text)) {
    return IGNORED["not an API call"]
  }
  if (text.indexOf("huggingface.co") !== -1 && HUB_API_RE.test(text) && !HF_INFERENCE_RE.test(text) && text.indexOf("/v1/chat/completions") === -1) {
    return IGNORED["not an API call"]
  }
  const status = d.status ?? d.phraseStatus
  // openai-python's retries logged by httpx, the last of them a success: the call went through
  if (status !== null && status >= 400 && succeededAfterRetries(text)) return IGNORED["status < 400"]
  if (status !== null) {
    // a success, unless its body is an error of the API's own: Baidu Qianfan and MiniMax answer
    // some failures with HTTP 200 and a non-zero error code in the body
    if (status < 400 && !(d.hasBody && isErrorCode(d.code) && d.message !== null) && !failsAfterSuccessLine(d, text)) return IGNORED["status < 400"]
    // An access log line of some other HTTP endpoint (`GET /users/42 404`) is not an API call.
    if (!d.hasBody && d.sawPath && !d.sawLlmPath && !d.knownClass && !LLM_WORDS_RE.test(text) && d.provider === null && providerOfText(text) === null) {
      return IGNORED["not an API call"]
    }
  } else if (!d.hasBody && !d.explicitCode) {
    const head = text.length > 8192 ? text.slice(0, 8192) : text
    const worded =
      categoryFromWording(head) !== null ||
      (d.knownClass && LLM_CONTEXT_RE.test(text)) ||
      // any exception class raised around an LLM call (`CohereAPIError: …`, `OllamaError: …`):
      // the words name the provider or the model API, the class says it failed
      (d.errorClass !== null && EXCEPTION_CLASS_LINE_RE.test(head) && LLM_WORDS_RE.test(text)) ||
      // an error logged about an LLM call in the application's own words (`sse error: LLM model
      // response empty`, `error unmarshalling stream response`)
      (LLM_CALL_ERROR_RE.test(head) && !SUCCESS_RE.test(head)) ||
      recognises({ code: d.code, errorType: d.errorType, errorClass: d.errorClass, text: d.message === null || head.indexOf("\n") !== -1 ? head : d.message, provider: d.provider ?? providerOfText(head)?.provider ?? null })
    if (!worded) {
      if (d.transportError === null) return IGNORED["no failure signal"]
      // a transport failure counts when the record shows an API call: LLM words or paths, a known
      // API host (`generativelanguage.googleapis.com`) or provider marker, or an HTTP client's own failure
      // (a model the record names is LLM context too: `issue connecting to <model>`)
      if (!d.transportExplicit && d.model === null && !LLM_CONTEXT_RE.test(text) && !isHttpClientTransport(text) && providerOfHosts(text) === null && providerOfText(head) === null) {
        return IGNORED["not an API call"]
      }
    }
  }
  return null
}
