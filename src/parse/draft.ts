/**
 * The draft every extractor writes into: a mutable ParsedFailure plus what the resolver needs,
 * with first-writer-wins setters that also note the evidence (extractor, text) when asked for.
 * And the small value helpers the extractors share.
 */
import { catalogClasses } from "../catalog/index.js"
import { TRANSPORT_CODE_RE } from "./extract/transport.js"
import type { Evidence, EvidenceMap, ExplainedField, Extractor } from "./ParsedFailure.js"

const MESSAGE_MAX = 1000

export const MAX_DEPTH = 4

export function isDigit(c: number): boolean {
  return c >= 48 && c <= 57
}

export function isAlnum(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122)
}

export interface Draft {
  status: number | null
  /** A status named only by its reason phrase (`ParsedFailure.phraseStatus`). */
  phraseStatus: number | null
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
  /** The limit the error names outside its message (Google's QuotaFailure quotaId). */
  limitDetail: string | null
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
  /** Given explicitly (webhook `provider`, a JSON log's `provider` key). */
  provider: string | null
  /** Short texts that may name the provider besides the message: module paths, logger names. */
  providerHints: string[]
  /** The extractor at work: what evidence is attributed to. */
  from: Extractor
  /** The evidence of each field, when asked for (`--explain`); null otherwise. */
  explain: EvidenceMap | null
}

export function newDraft(): Draft {
  return {
    status: null,
    bodyStatus: null,
    phraseStatus: null,
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
    limitDetail: null,
    transportExplicit: false,
    messagesCount: null,
    truncated: false,
    hasBody: false,
    explicitCode: false,
    sawPath: false,
    sawLlmPath: false,
    provider: null,
    providerHints: [],
    from: "free-text",
    explain: null
  }
}

export const KNOWN_CLASS_RE =
  /\b(RateLimitError|AuthenticationError|PermissionDeniedError|NotFoundError|BadRequestError|InternalServerError|APIConnectionError|APITimeoutError|APIStatusError|UnprocessableEntityError|ConflictError|ServiceUnavailableError|ContextWindowExceededError|ContentPolicyViolationError|APIError|ConnectTimeout|ReadTimeout|ConnectError|ProxyError|SSLError)\b/

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

export function setStatus(d: Draft, status: number | null, text?: string): void {
  if (d.status === null && status !== null) {
    d.status = status
    if (d.explain !== null) note(d, "status", text ?? String(status))
  }
}

/** The status the upstream API itself answered, named unmistakably by its SDK: replaces one a wrapper gave. */
export function setUpstreamStatus(d: Draft, status: number, text: string): void {
  if (d.status === status) return
  d.status = status
  if (d.explain !== null) note(d, "status", text)
}

export function setBodyStatus(d: Draft, n: number): void {
  if (d.bodyStatus === null && Number.isInteger(n) && n >= 400 && n <= 599) {
    d.bodyStatus = n
    if (d.explain !== null) d.explain.bodyStatus = { from: d.from, text: String(n) }
  }
}

export function setCode(d: Draft, v: unknown): void {
  if (d.code !== null) return
  // a Node / OS error code (`ECONNRESET`, `UND_ERR_CONNECT_TIMEOUT`) names a transport failure,
  // not a code of the API's error body
  if (typeof v === "string" && TRANSPORT_CODE_RE.test(v.trim())) {
    if (d.transportError === null) d.transportError = v.trim()
    return
  }
  d.code = normCode(v)
  if (d.explain !== null && d.code !== null) note(d, "code", String(d.code))
}

/** Evidence of a field, when asked for: the extractor at work and the text it read. */
export function note(d: Draft, field: keyof EvidenceMap, text: string): void {
  if (d.explain !== null) d.explain[field] = { from: d.from, text: span(text) }
}

/** At most 200 characters (the texts are already redacted). */
export function span(text: string): string {
  return text.length > 200 ? text.slice(0, 199) + "…" : text
}

/** The line around index `i` of `s` (the text a status was read from). */
export function lineAround(s: string, i: number): string {
  const start = s.lastIndexOf("\n", i) + 1
  const nl = s.indexOf("\n", i)
  const line = s.slice(start, nl === -1 ? s.length : nl).trim()
  if (line.length <= 200) return line
  const from = Math.max(0, i - start - 80)
  return line.slice(from, from + 200)
}

/** The evidence of the fields the event carries (the body status was only a candidate). */
export function finalEvidence(e: EvidenceMap): Record<ExplainedField, Evidence | null> {
  return { status: e.status ?? null, code: e.code ?? null, message: e.message ?? null, model: e.model ?? null, provider: e.provider ?? null }
}

/** A message longer than this is cut (with `…`): it is a reason, not a payload. */
const MESSAGE_MAX_CHARS = 4096

export function setMessage(d: Draft, v: unknown): void {
  if (d.message !== null || typeof v !== "string") return
  const m = normalizeMessage(v.length > 4 * MESSAGE_MAX_CHARS ? v.slice(0, 4 * MESSAGE_MAX_CHARS) : v)
  if (m !== "" && !isNullWord(m)) {
    d.message = m.length > MESSAGE_MAX_CHARS ? m.slice(0, MESSAGE_MAX_CHARS - 1) + "…" : m
    if (d.explain !== null) note(d, "message", d.message)
  }
}

export function setErrorType(d: Draft, v: string): void {
  if (d.errorType === null && v !== "" && !isNullWord(v) && v.length <= 100) d.errorType = v
}

export function setClass(d: Draft, name: string): void {
  const bare = name.slice(name.lastIndexOf(".") + 1)
  const known = KNOWN_CLASS_RE.test(bare) || catalogClasses.has(bare)
  if (d.errorClass === null || (known && !d.knownClass)) {
    d.errorClass = bare
    d.knownClass = known
  }
}

export function setModel(d: Draft, v: unknown): void {
  if (d.model !== null || typeof v !== "string") return
  let m = v.trim()
  // a Vertex AI model named as its resource (`projects/p/locations/l/publishers/google/models/gemini-1.5-pro`,
  // grpc-go's `Publisher Model `…` not found`): the model is the last segment
  if (m.indexOf("/models/") !== -1 && (m.startsWith("projects/") || m.startsWith("publishers/"))) m = m.slice(m.lastIndexOf("/models/") + 8)
  // a Bedrock foundation model named by its ARN (`arn:aws:bedrock:us-east-1::foundation-model/amazon.titan-embed-text-v1`)
  if (m.startsWith("arn:aws") && m.indexOf(":foundation-model/") !== -1) m = m.slice(m.indexOf(":foundation-model/") + 18)
  // a placeholder left in a sample config (`MODEL_ID_GOES_HERE`, `YOUR_MODEL_NAME`) names no model
  if (PLACEHOLDER_RE.test(m)) return
  if (m !== "" && m.length <= 200 && !isNullWord(m) && m !== "<redacted>") {
    d.model = m
    if (d.explain !== null) note(d, "model", m)
  }
}

const PLACEHOLDER_RE = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+){2,}$/

export function setRequestId(d: Draft, v: unknown): void {
  if (d.requestId !== null) return
  if (typeof v === "string" && v.trim() !== "" && v.length <= 200 && !isNullWord(v)) d.requestId = v.trim()
  else if (typeof v === "number" && Number.isFinite(v)) d.requestId = String(v)
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v)
}

export function str(v: unknown): string | null {
  return typeof v === "string" && v.trim() !== "" ? v : null
}

export function getPath(o: Record<string, unknown>, path: ReadonlyArray<string>): unknown {
  let cur: unknown = o
  for (const k of path) {
    if (!isRecord(cur)) return undefined
    cur = cur[k]
  }
  return cur
}

export function toStatus(v: unknown): number | null {
  let n: number
  if (typeof v === "number") n = v
  else if (typeof v === "string" && /^\s*\d{3}\s*$/.test(v)) n = Number(v)
  else return null
  return Number.isInteger(n) && n >= 100 && n <= 599 ? n : null
}

export function normCode(v: unknown): number | string | null {
  if (typeof v === "number") return Number.isFinite(v) ? v : null
  if (typeof v !== "string") return null
  const s = v.trim()
  if (s === "" || isNullWord(s) || s.length > 100) return null
  if (/^-?\d{1,9}$/.test(s)) return Number(s)
  return s
}

export function isNullWord(s: string): boolean {
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

export function isModelLike(v: string): boolean {
  return v.length >= 2 && /[A-Za-z]/.test(v) && /[\d/\-.:]/.test(v) && !RATE_TIER_RE.test(v) && !CODE_EXPR_RE.test(v) && !UUID_RE.test(v) && !BLOB_RE.test(v)
}

/** A content-addressed file (Ollama's `…/models/blobs/sha256-<64 hex>`) is no model's name either. */
const BLOB_RE = /sha256[-:][0-9a-f]{32,}/i

/** A UUID (Xinference's model uid in `/v1/models/<uid>`, a request id) is no model's name. */
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** A code expression where a value would stand (`modelId=self.model_id` in a traceback's source line). */
const CODE_EXPR_RE = /^(?:self|this|cls)\./

/** OpenAI's old rate-limit tier names (`10KTPM-200RPM`) stand where a model's name does. */
const RATE_TIER_RE = /^\d+K?TPM-\d+K?RPM$/i

export function trimPunct(v: string): string {
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
