/**
 * ParsedFailure -> category, rate-limit kind, severity, retryable, action, fingerprint
 * (CONTRACT section 4). Pure; the status wins over words, except quota wording on 429/403.
 */
import type { ParsedFailure } from "../parse/ParsedFailure.js"
import type { Category, Classification, RateLimitKind, Severity } from "./Event.js"

// ---------------------------------------------------------------------------------------------
// Vocabulary: unambiguous wording of the service, of OpenAI-compatible APIs and of client
// libraries, in English and Chinese. Every pattern is linear (literals, bounded gaps).

export const wording = {
  realname: /real[- ]?name|实名/i,
  quota:
    /insufficient[_ ]quota|exceeded your current quota|quota (?:has been |is )?(?:exceeded|exhausted|used up)|out of quota|insufficient (?:account |credit )?balance|balance (?:is )?(?:insufficient|not enough|too low)|credit balance is too low|out of credits|insufficient credits|余额不足|欠费|额度不足|额度已用完|配额不足/i,
  modelNotFound:
    /\bmodels?\b[^\n]{0,100}?\b(?:does not|doesn't|not) exists?\b|model_not_found|no such model|unknown model|模型不存在|模型[^，。\n]{0,40}不存在/i,
  rateLimit:
    /rate[ _-]?limit(?:ed|ing)?[ _](?:reached|exceeded|error|hit)|(?:due to|hit|exceeds?|exceeded|reached) (?:the |your |a )?(?:\w+ )?rate[ _-]?limit|\bRateLimitError\b|too many requests|\b(?:RPM|RPH|RPD|TPM|TPD|IPM|IPD)\b[^.\n]{0,24}(?:limit|reached|exceeded)|(?:limit|reached|max|exceeded)[^.\n]{0,24}\b(?:RPM|RPH|RPD|TPM|TPD|IPM|IPD)\b|限流|请求过于频繁|频率超限|速率限制/i,
  overload: /too busy|\boverloaded\b|server is busy|system is busy|系统繁忙|服务繁忙|负载过高|服务器繁忙/i,
  authKey:
    /invalid api[ _-]?key|incorrect api[ _-]?key|api[ _-]?key is invalid|invalid_api_key|api key not valid|invalid x-api-key|authentication_error|api key (?:is )?(?:missing|not (?:set|provided))|令牌无效|密钥无效/i,
  serverError: /server had an error|an error occurred while processing your request|internal server error/i
} as const

/** The category that wording alone makes unambiguous, or null. Used when no status is given. */
export function categoryFromWording(text: string): Category | null {
  if (text === "") return null
  if (wording.realname.test(text)) return "auth_realname"
  if (wording.quota.test(text)) return "quota"
  if (wording.modelNotFound.test(text)) return "model_not_found"
  if (wording.rateLimit.test(text)) return "rate_limit"
  if (wording.overload.test(text)) return "overload"
  if (wording.authKey.test(text)) return "auth_key"
  if (wording.serverError.test(text)) return "server_error"
  return null
}

// Maps, not object literals: the keys looked up are the log's own text, and `__proto__` or
// `constructor` must find nothing rather than Object.prototype's members.
const CLASS_CATEGORY: ReadonlyMap<string, Category> = new Map<string, Category>([
  ["RateLimitError", "rate_limit"],
  ["AuthenticationError", "auth_key"],
  ["PermissionDeniedError", "permission"],
  ["BadRequestError", "invalid_request"],
  ["UnprocessableEntityError", "invalid_request"],
  ["InternalServerError", "server_error"],
  ["ServiceUnavailableError", "overload"],
  ["APIConnectionError", "transport"],
  ["APITimeoutError", "transport"],
  ["ConnectTimeout", "transport"],
  ["ReadTimeout", "transport"],
  ["ConnectError", "transport"],
  ["ProxyError", "transport"],
  ["SSLError", "transport"]
])

/** OpenAI-style `error.type` / string `code` values. */
const TYPE_CATEGORY: ReadonlyMap<string, Category> = new Map<string, Category>([
  ["rate_limit_exceeded", "rate_limit"],
  ["rate_limit_error", "rate_limit"],
  ["requests", "rate_limit"],
  ["tokens", "rate_limit"],
  ["insufficient_quota", "quota"],
  ["billing_hard_limit_reached", "quota"],
  ["invalid_api_key", "auth_key"],
  ["authentication_error", "auth_key"],
  ["permission_error", "permission"],
  ["model_not_found", "model_not_found"],
  ["invalid_request_error", "invalid_request"],
  ["server_error", "server_error"],
  ["api_error", "server_error"],
  ["overloaded_error", "overload"]
])

// ---------------------------------------------------------------------------------------------

export function classify(f: ParsedFailure): Classification {
  const text = classificationText(f)
  const category = f.status !== null ? fromStatus(f.status, f, text) : fromWordsAndClasses(f, text)
  const rateLimitKind = category === "rate_limit" ? rateLimitKindOf(text) : null
  const partial = { category, rateLimitKind }
  return {
    category,
    rateLimitKind,
    severity: severityOf(category, rateLimitKind),
    retryable: isRetryable(category, rateLimitKind),
    action: actionFor(category, rateLimitKind),
    fingerprint: fingerprint(f, partial)
  }
}

function classificationText(f: ParsedFailure): string {
  let t = f.message ?? ""
  if (f.errorType !== null) t += " " + f.errorType
  if (typeof f.code === "string") t += " " + f.code
  if (f.errorClass !== null) t += " " + f.errorClass
  return t
}

function fromStatus(status: number, f: ParsedFailure, text: string): Category {
  switch (status) {
    case 402:
      return "quota"
    case 429:
      return wording.quota.test(text) ? "quota" : "rate_limit"
    case 403:
      if (f.code === 30003 || wording.realname.test(text)) return "auth_realname"
      return wording.quota.test(text) ? "quota" : "permission"
    case 401:
      return "auth_key"
    case 400:
      return isModelNotFound(f, text) ? "model_not_found" : "invalid_request"
    case 422:
      return "invalid_request"
    case 503:
    case 504:
      return "overload"
    case 500:
      return "server_error"
    case 502:
    case 408:
    case 530:
      return "transport"
    default:
      if (status >= 520 && status <= 527) return "transport"
      // Statuses without a category of their own (404, 413, ...): a model-not-found message
      // is still specific enough (OpenAI answers 404 for an unknown model).
      return isModelNotFound(f, text) ? "model_not_found" : "unknown"
  }
}

function isModelNotFound(f: ParsedFailure, text: string): boolean {
  return f.code === 20012 || wording.modelNotFound.test(text)
}

function fromWordsAndClasses(f: ParsedFailure, text: string): Category {
  if (f.code === 20012) return "model_not_found"
  if (f.code === 50508) return "overload"
  if (f.code === 30003) return "auth_realname"
  const worded = categoryFromWording(text)
  if (worded !== null) return worded
  if (f.transportError !== null) return "transport"
  if (f.errorClass !== null) {
    const byClass = CLASS_CATEGORY.get(f.errorClass)
    if (byClass !== undefined) return byClass
  }
  for (const key of [f.errorType, typeof f.code === "string" ? f.code : null]) {
    if (key === null) continue
    const byType = TYPE_CATEGORY.get(key.toLowerCase())
    if (byType !== undefined) return byType
  }
  return "unknown"
}

// ---------------------------------------------------------------------------------------------
// Rate-limit kind

const KIND_ABBR_RE = /\b(RPM|RPH|RPD|TPM|TPD|IPM|IPD)\b/i
const KIND_WORDS_RE = /\b(requests?|tokens?|images?)[ -]per[ -](min(?:ute)?|hour|day)\b/i
const KIND_DAILY_RE = /\bdaily (?:\w+ )?(request|token|image)s?\b|\b(request|token|image)s? per day\b/i
const KIND_ZH_RE = /(每分钟|每小时|每日|每天|当日|今日)/

/** RPM/RPH/RPD/TPM/TPD/IPM/IPD named by abbreviation or in words (English, Chinese); else `unknown`. */
export function rateLimitKindOf(text: string): RateLimitKind {
  const abbr = KIND_ABBR_RE.exec(text)
  if (abbr !== null) return abbr[1].toUpperCase() as RateLimitKind
  const words = KIND_WORDS_RE.exec(text)
  if (words !== null) return kindOf(words[1], words[2])
  const daily = KIND_DAILY_RE.exec(text)
  if (daily !== null) return kindOf(daily[1] ?? daily[2] ?? "request", "day")
  const zh = KIND_ZH_RE.exec(text)
  if (zh !== null) {
    const unit = zh[1] === "每分钟" ? "min" : zh[1] === "每小时" ? "hour" : "day"
    const resource = /token|令牌/i.test(text) ? "token" : /图片|图像|image/i.test(text) ? "image" : "request"
    return kindOf(resource, unit)
  }
  return "unknown"
}

function kindOf(resource: string, unit: string): RateLimitKind {
  const r = resource[0].toLowerCase()
  const u = unit.startsWith("min") ? "M" : unit === "hour" ? "H" : "D"
  const kind = `${r === "t" ? "T" : r === "i" ? "I" : "R"}P${u}`
  return kind === "TPH" || kind === "IPH" ? "unknown" : (kind as RateLimitKind)
}

// ---------------------------------------------------------------------------------------------
// Severity, retryability, action

const DAILY: ReadonlySet<RateLimitKind> = new Set<RateLimitKind>(["RPD", "TPD", "IPD"])

export function severityOf(category: Category, kind: RateLimitKind | null): Severity {
  switch (category) {
    case "auth_key":
    case "quota":
    case "server_error":
      return "critical"
    case "rate_limit":
      return kind !== null && DAILY.has(kind) ? "critical" : "warning"
    case "invalid_request":
      return "info"
    default:
      return "warning"
  }
}

/** Whether retrying can help: the one place that decides it. */
export function isRetryable(category: Category, kind: RateLimitKind | null): boolean {
  switch (category) {
    case "rate_limit":
      return kind === null || !DAILY.has(kind)
    case "overload":
    case "transport":
    case "server_error":
      return true
    default:
      return false
  }
}

const KIND_WORDS: Readonly<Record<Exclude<RateLimitKind, "unknown">, string>> = {
  RPM: "requests-per-minute",
  RPH: "requests-per-hour",
  RPD: "requests-per-day",
  TPM: "tokens-per-minute",
  TPD: "tokens-per-day",
  IPM: "images-per-minute",
  IPD: "images-per-day"
}

const ACTIONS: Readonly<Record<Category, string>> = {
  model_not_found: "Correct the `model` parameter: the requested model does not exist.",
  invalid_request: "Correct the request parameters according to the message.",
  auth_key: "Fix the API key: it is missing or not set correctly.",
  auth_realname: "Complete real-name authentication of the account to use this model.",
  permission: "Read the message and fix the permission it names.",
  quota: "Top up the balance or raise the quota; retrying will not help.",
  rate_limit: "Slow down or wait: a rate limit was hit (the message does not say which).",
  overload: "Retry later with backoff; for chat and text-to-speech requests use `stream: true`.",
  server_error: "Escalate to the operator: a ticket is opened for this unknown service error.",
  transport: "Check the network path to the API; if a proxy is enabled, disable it and retry.",
  unknown: "Read the message and look at the raw sample."
}

export function actionFor(category: Category, kind: RateLimitKind | null): string {
  if (category === "rate_limit" && kind !== null && kind !== "unknown") {
    return DAILY.has(kind)
      ? `Slow down or wait for the daily reset: the ${KIND_WORDS[kind]} limit was hit.`
      : `Slow down or wait: the ${KIND_WORDS[kind]} limit was hit.`
  }
  return ACTIONS[category]
}

// ---------------------------------------------------------------------------------------------
// Fingerprint

const QUOTED_RE = /(^|[^\w])(?:'[^'\n]{0,200}'|"[^"\n]{0,200}"|`[^`\n]{0,200}`|“[^”\n]{0,200}”|‘[^’\n]{0,200}’)/g
const UUID_RE = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi
const PREFIXED_ID_RE =
  /\b(?:org|proj|req|request|chatcmpl|cmpl|call|run|thread|msg|file|batch|resp|asst|ft|trace|span|sess|evt)[-_][A-Za-z0-9]{3,}(?:[-_][A-Za-z0-9]{3,}){0,4}/gi
const DURATION_RE = /\b(?:\d+(?:\.\d+)?(?:ms|[smhd])){1,4}\b/g
const ALNUM_ID_RE = /\b[A-Za-z0-9]{8,}\b/g
const NUMBER_RE = /\d+(?:[.,]\d+)*/g
const SPACE_RE = /\s+/g
const DIGIT_RE = /\d/
const MASK_MAX = 600

/**
 * The message with quoted values, ids, durations and numbers masked (what the fingerprint sees).
 * Each pass runs only when its marker character is present (measured: cheaper than one combined pass).
 */
export function maskMessage(message: string): string {
  let s = message.length > MASK_MAX ? message.slice(0, MASK_MAX) : message
  if (s.indexOf("'") !== -1 || s.indexOf('"') !== -1 || s.indexOf("`") !== -1 || s.indexOf("“") !== -1 || s.indexOf("‘") !== -1) {
    s = s.replace(QUOTED_RE, "$1<q>")
  }
  const dash = s.indexOf("-") !== -1
  if (dash) s = s.replace(UUID_RE, "<id>")
  if (dash || s.indexOf("_") !== -1) s = s.replace(PREFIXED_ID_RE, "<id>")
  if (DIGIT_RE.test(s)) {
    s = s.replace(DURATION_RE, "<dur>")
    s = s.replace(ALNUM_ID_RE, maskAlnum)
    s = s.replace(NUMBER_RE, "#")
  }
  return s.replace(SPACE_RE, " ").trim().toLowerCase()
}

/** A long alphanumeric word mixing digits and letters is an id. */
function maskAlnum(word: string): string {
  let digits = false
  let letters = false
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i)
    if (c >= 48 && c <= 57) digits = true
    else letters = true
  }
  return digits && letters ? "<id>" : word
}

/**
 * Fingerprints of recently seen failures, by message and then by the other parts of the key:
 * the same failure comes in runs (a burst of 429s), and masking its message is most of the work.
 * Keyed by the message string itself rather than a concatenated key, which would have to be
 * built and flattened for every event. Bounded: messages up to 512 characters, 4096 of them
 * (cleared when full), 64 keys each.
 */
const recentFingerprints = new Map<string, Map<string, string>>()
const RECENT_FINGERPRINTS = 4096

/** 16 hex chars identifying "the same failure" (CONTRACT section 4). */
export function fingerprint(
  f: ParsedFailure,
  c: { readonly category: Category; readonly rateLimitKind: RateLimitKind | null }
): string {
  const head = [
    c.category,
    c.rateLimitKind ?? "",
    f.status === null ? "" : String(f.status),
    f.code === null ? "" : String(f.code),
    f.model ?? "",
    f.service ?? ""
  ].join("\u001f")
  const message = f.message ?? ""
  let byHead = recentFingerprints.get(message)
  let fp = byHead?.get(head)
  if (fp === undefined) {
    fp = hash64Hex(`${head}\u001f${f.message === null ? "" : maskMessage(f.message)}`)
    if (message.length > 512) return fp
    if (byHead === undefined) {
      if (recentFingerprints.size >= RECENT_FINGERPRINTS) recentFingerprints.clear()
      recentFingerprints.set(message, (byHead = new Map()))
    }
    if (byHead.size < 64) byHead.set(head, fp)
  }
  return fp
}

/**
 * A cheap non-cryptographic 64-bit hash (two multiplicative 32-bit lanes, cyrb53-style
 * finalisation) as two unsigned 32-bit halves. Good for grouping, not for security.
 */
export function hash64(text: string, seed = 0): [number, number] {
  let h1 = 0xdeadbeef ^ seed
  let h2 = 0x41c6ce57 ^ seed
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i)
    h1 = Math.imul(h1 ^ ch, 2654435761)
    h2 = Math.imul(h2 ^ ch, 1597334677)
  }
  return finish64(h1, h2)
}

/**
 * `[...hash64(text, 0), ...hash64(text, seed)]` for `text` the concatenation of `parts`, in one
 * pass and without building it: the tailer's event ids hash whole records.
 */
export function hash64Twice(parts: ReadonlyArray<string>, seed: number): [number, number, number, number] {
  let a1 = 0xdeadbeef
  let a2 = 0x41c6ce57
  let b1 = 0xdeadbeef ^ seed
  let b2 = 0x41c6ce57 ^ seed
  for (const part of parts) {
    for (let i = 0; i < part.length; i++) {
      const ch = part.charCodeAt(i)
      a1 = Math.imul(a1 ^ ch, 2654435761)
      a2 = Math.imul(a2 ^ ch, 1597334677)
      b1 = Math.imul(b1 ^ ch, 2654435761)
      b2 = Math.imul(b2 ^ ch, 1597334677)
    }
  }
  return [...finish64(a1, a2), ...finish64(b1, b2)]
}

/** hash64's finalisation of its two lanes. */
function finish64(h1: number, h2: number): [number, number] {
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507)
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909)
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507)
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909)
  return [h2 >>> 0, h1 >>> 0]
}

export function hash64Hex(text: string, seed = 0): string {
  const [hi, lo] = hash64(text, seed)
  return hi.toString(16).padStart(8, "0") + lo.toString(16).padStart(8, "0")
}
