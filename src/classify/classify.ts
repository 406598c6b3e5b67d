/**
 * ParsedFailure -> category, rate-limit kind, severity, retryable, action, fingerprint
 * (CONTRACT section 4). The decision is made once, in this order: the user's rules
 * (`classify.rules`), then the status table refined by the provider catalogue and the built-in
 * wording (the status wins over words, except quota; a catalogue entry that names the status
 * is the provider's own word on it), then, without a status, the catalogue and the wording.
 */
import type { ParsedFailure } from "../parse/ParsedFailure.js"
import type { Category, Classification, RateLimitKind, Severity } from "./Event.js"
import { type CatalogInput, type Entry, lookup, providerOfText } from "../catalog/index.js"
import { gatedWording, wordingOf } from "../catalog/wording.js"
import { matchRule, rulesVersion } from "./rules.js"

export { categoryFromWording, wording } from "../catalog/wording.js"

/** What decided the category (`--explain`'s `decidedBy`). */
export interface DecidedBy {
  readonly kind: "rule" | "catalog" | "status" | "wording"
  /** The rule's name, the catalogue entry's id, the status, or the wording's name. */
  readonly name: string
}

export interface Verdict {
  readonly category: Category
  readonly rateLimitKind: RateLimitKind | null
  readonly decidedBy: DecidedBy
  /** The provider the message names, or the matched catalogue entry identifies (else null). */
  readonly provider: string | null
  /** The text that told the provider (a marker in the message, a host), when it was not the entry. */
  readonly providerText: string | null
}

// ---------------------------------------------------------------------------------------------

export function classify(f: ParsedFailure): Classification {
  const v = verdictOf(f)
  const provider = f.providerWeak === true ? (v.provider ?? f.provider) : (f.provider ?? v.provider)
  return {
    category: v.category,
    rateLimitKind: v.rateLimitKind,
    severity: severityOf(v.category, v.rateLimitKind),
    retryable: isRetryable(v.category, v.rateLimitKind),
    action: actionFor(v.category, v.rateLimitKind),
    fingerprint: fingerprint(f, v),
    decidedBy: v.decidedBy,
    provider,
    providerText: f.provider === null || (f.providerWeak === true && v.provider !== null) ? v.providerText : null
  }
}

/**
 * Verdicts of recently seen failures, by message and then by the other inputs of the decision:
 * failures come in runs, and the catalogue's patterns are most of the work. Bounded like the
 * fingerprints; cleared when the rules change.
 */
/** A remembered verdict with the inputs it was decided from (besides the message). */
interface Remembered {
  readonly status: number | null
  readonly phraseStatus: number | null
  readonly code: number | string | null
  readonly errorType: string | null
  readonly errorClass: string | null
  readonly provider: string | null
  readonly providerWeak: boolean
  readonly transport: boolean
  readonly limitDetail: string | null
  /** A multi-line record's other failure lines (they can decide: `withOtherLines`). */
  readonly otherLines: string | null
  readonly verdict: Verdict
}

const recentVerdicts = new Map<string, Remembered[]>()
const RECENT_VERDICTS = 4096
/** Verdicts remembered per message: the inputs are compared field by field, no key is built. */
const PER_MESSAGE = 16
let verdictsOfRules = 0
/**
 * Remembered verdicts that carry a multi-line record's other lines: those lines may differ from
 * record to record (times, ids), so they are kept only while short and few (~0.5 MB at most).
 */
let withLines = 0
const WITH_LINES_MAX = 2048
const LINES_MAX_CHARS = 256

export function verdictOf(f: ParsedFailure): Verdict {
  if (verdictsOfRules !== rulesVersion()) {
    recentVerdicts.clear()
    withLines = 0
    verdictsOfRules = rulesVersion()
  }
  const lines = f.otherLines ?? null
  if (lines !== null && lines.length > LINES_MAX_CHARS) return decide(f)
  const message = f.message ?? ""
  const transport = f.transportError !== null
  let list = recentVerdicts.get(message)
  if (list !== undefined) {
    for (const r of list) {
      if (
        r.status === f.status && r.code === f.code && r.errorType === f.errorType && r.errorClass === f.errorClass &&
        r.provider === f.provider && r.providerWeak === (f.providerWeak === true) && r.phraseStatus === f.phraseStatus && r.transport === transport &&
        r.limitDetail === (f.limitDetail ?? null) && r.otherLines === lines
      ) {
        return r.verdict
      }
    }
  }
  const verdict = decide(f)
  if (message.length > 512 || (lines !== null && withLines >= WITH_LINES_MAX)) return verdict
  if (list === undefined) {
    if (recentVerdicts.size >= RECENT_VERDICTS) {
      recentVerdicts.clear()
      withLines = 0
    }
    recentVerdicts.set(message, (list = []))
  }
  if (list.length < PER_MESSAGE) {
    if (lines !== null) withLines++
    list.push({ status: f.status, phraseStatus: f.phraseStatus, code: f.code, errorType: f.errorType, errorClass: f.errorClass, provider: f.provider, providerWeak: f.providerWeak === true, transport, limitDetail: f.limitDetail ?? null, otherLines: lines, verdict })
  }
  return verdict
}

/** The text that words are looked for in: the message and the names the record carries. */
function classificationText(f: ParsedFailure): string {
  let t = f.message ?? ""
  if (f.errorType !== null) t += " " + f.errorType
  if (typeof f.code === "string") t += " " + f.code
  if (f.errorClass !== null) t += " " + f.errorClass
  if (f.limitDetail !== undefined && f.limitDetail !== null) t += " " + f.limitDetail
  return t
}

const verdict = (category: Category, text: string, decidedBy: DecidedBy, kind?: RateLimitKind, provider: string | null = null): Verdict => ({
  category,
  rateLimitKind: category === "rate_limit" ? (kind ?? rateLimitKindOf(text)) : null,
  decidedBy,
  provider,
  providerText: null
})

const byEntry = (e: Entry, text: string): Verdict =>
  verdict(e.category, text, { kind: "catalog", name: e.id }, e.rateLimitKind, e.identifies === true ? e.family : null)

/** Without a status: what the words may say, most specific first. */
const WORD_ORDER: ReadonlyArray<Category> = [
  "auth_realname", "quota", "model_not_found", "rate_limit", "overload", "auth_key", "permission", "invalid_request", "server_error", "transport", "unknown"
]
const QUOTA: ReadonlyArray<Category> = ["quota"]
const RATE_LIMIT: ReadonlyArray<Category> = ["rate_limit"]
const AFTER_400: ReadonlyArray<Category> = ["quota", "model_not_found", "auth_key"]
const AFTER_403: ReadonlyArray<Category> = ["auth_realname", "quota", "permission"]

function decide(f: ParsedFailure): Verdict {
  if (f.provider !== null && f.providerWeak !== true) return decideCategory(f)
  // a provider told only by an SDK's name yields to what the message, code or catalogue says of the
  // API (`openai.NotFoundError` of an Azure deployment); else it decides as if told
  const weak = f.providerWeak === true ? f.provider : null
  if (weak !== null) f = { ...f, provider: null }
  // the provider the message (or the class, type, code) names beats one a catalogue entry implies,
  // and is told to the catalogue like any other (its provider-only entries then apply)
  const text = classificationText(f)
  const told = providerOfText(text)
  if (told !== null) return { ...decideCategory({ ...f, provider: told.provider }), provider: told.provider, providerText: told.text }
  const v = decideCategory(f)
  if (v.provider !== null) return v
  if (f.code === null && f.errorClass === null) return weak === null ? v : decideCategory({ ...f, provider: weak })
  // a code or class only one family uses (`ThrottlingException`, `1113`) names it whatever decided the category
  const input: CatalogInput = { status: f.status ?? f.phraseStatus, code: f.code, errorType: f.errorType, errorClass: f.errorClass, text, provider: null }
  const all = lookup(input, WORD_ORDER)
  // else a wording only that family uses, next to a code others share (Bedrock's "with on-demand
  // throughput isn't supported" under AWS's ValidationException)
  const own =
    all.find((e) => e.identifies === true && (e.match.code !== undefined || e.match.errorClass !== undefined)) ??
    all.find((e) => e.identifies === true && e.match.message !== undefined)
  if (own !== undefined) return { ...v, provider: own.family }
  return weak === null ? v : decideCategory({ ...f, provider: weak })
}

function decideCategory(f: ParsedFailure): Verdict {
  const text = classificationText(f)
  const rule = matchRule(f)
  if (rule !== null) return verdict(rule.category, text, { kind: "rule", name: rule.name }, rule.rateLimitKind ?? undefined)
  const input: CatalogInput = { status: f.status ?? f.phraseStatus, code: f.code, errorType: f.errorType, errorClass: f.errorClass, text, provider: f.provider }
  let v: Verdict
  // a success status with an error body (Qianfan's and MiniMax's HTTP 200) says nothing of the
  // category: the body's code and words decide, as without a status
  const shown = f.status ?? f.phraseStatus
  if (shown === null || shown < 400) v = withoutStatus(f, text, lookup({ ...input, status: null }, WORD_ORDER))
  else {
    v = withStatus(f, f.status ?? f.phraseStatus!, text, input)
    // a status named only by its reason phrase decides as wording, not as a status the record shows
    if (f.status === null && v.decidedBy.kind === "status") v = { ...v, decidedBy: { kind: "wording", name: `reason phrase (${v.decidedBy.name})` } }
  }
  if (f.otherLines !== undefined && f.otherLines !== null) v = withOtherLines(f, v, text, input, f.otherLines)
  if (v.rateLimitKind !== "unknown") return v
  // a limit the text does not name in words a provider's catalogue may know by its own name
  // (OpenRouter's `free-models-per-day`)
  const named = lookup(input, RATE_LIMIT).find((e) => e.rateLimitKind !== undefined)
  if (named === undefined) return v
  return { ...v, rateLimitKind: named.rateLimitKind!, provider: v.provider ?? (named.identifies === true ? named.family : null) }
}

/** Verdicts the status table gave for want of words: the record's other lines may have them. */
const WEAK_BY_STATUS: ReadonlySet<Category> = new Set<Category>(["unknown", "server_error", "invalid_request", "permission"])

/**
 * A multi-line record whose message says little (`API call failed: InternalServerError [HTTP
 * 500]`, a report's `Error Type | session_failure` row) often says more on another line
 * (`Error: HTTP 500: insufficient balance`, `Rate limit exceeded.`). Where the status table (or
 * nothing) decided, the words and the catalogue are asked again with those lines; where the
 * verdict is a rate limit of no known kind, the lines may name it.
 */
function withOtherLines(f: ParsedFailure, v: Verdict, text: string, input: CatalogInput, lines: string): Verdict {
  if (v.decidedBy.kind === "status" && WEAK_BY_STATUS.has(v.category)) {
    const more = text + "\n" + lines
    const moreInput: CatalogInput = { ...input, text: more }
    const shown = f.status ?? f.phraseStatus
    const again = shown === null || shown < 400
      ? withoutStatus(f, more, lookup({ ...moreInput, status: null }, WORD_ORDER))
      : withStatus(f, shown, more, moreInput)
    if (again.decidedBy.kind !== "status" && again.category !== v.category && again.category !== "unknown") return again
  }
  if (v.rateLimitKind === "unknown") {
    const kind = rateLimitKindOf(lines)
    if (kind !== "unknown") return { ...v, rateLimitKind: kind }
  }
  return v
}

function withStatus(f: ParsedFailure, status: number, text: string, input: CatalogInput): Verdict {
  const order = status === 403 ? AFTER_403 : status === 400 || status === 404 ? AFTER_400 : tableCategory(status) === null ? WORD_ORDER : QUOTA
  const found = lookup(input, order)
  // the provider's own word on its status (Anthropic's 529, Gemini's 400 for a bad key)
  const explicit = found.find((e) => e.match.status !== undefined)
  if (explicit !== undefined) return byEntry(explicit, text)
  const quota = found.find((e) => e.category === "quota")
  if (quota !== undefined) return byEntry(quota, text)
  if (gatedWording.quota.test(text)) return verdict("quota", text, { kind: "wording", name: "quota" })
  const byStatus: DecidedBy = { kind: "status", name: String(status) }
  switch (status) {
    case 403: {
      if (gatedWording.realname.test(text)) return verdict("auth_realname", text, { kind: "wording", name: "realname" })
      const e = found.find((x) => x.category === "auth_realname" || x.category === "permission")
      return e !== undefined ? byEntry(e, text) : verdict("permission", text, byStatus)
    }
    case 400:
    case 404: {
      const e = found.find((x) => x.category === "model_not_found")
      if (e !== undefined) return byEntry(e, text)
      if (gatedWording.modelNotFound.test(text)) return verdict("model_not_found", text, { kind: "wording", name: "modelNotFound" })
      return verdict(status === 400 ? "invalid_request" : "unknown", text, byStatus)
    }
  }
  const table = tableCategory(status)
  if (table !== null) return verdict(table, text, byStatus)
  // A status without a category of its own (413, 529, ...): the provider's meaning, else the words.
  if (found.length > 0) return byEntry(found[0], text)
  const worded = wordingOf(text)
  if (worded !== null && worded.category === "model_not_found") return verdict(worded.category, text, { kind: "wording", name: worded.name })
  return verdict("unknown", text, byStatus)
}

/** The contract's status table (section 4); null for statuses without a category of their own. */
function tableCategory(status: number): Category | null {
  switch (status) {
    case 400:
    case 422:
      return "invalid_request"
    case 401:
      return "auth_key"
    case 402:
      return "quota"
    case 403:
      return "permission"
    case 429:
      return "rate_limit"
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
      return status >= 520 && status <= 527 ? "transport" : null
  }
}

/** No status: the catalogue by code, then the words, then a transport failure, class and type. */
function withoutStatus(f: ParsedFailure, text: string, found: ReadonlyArray<Entry>): Verdict {
  const byCode = found.find((e) => e.match.code !== undefined)
  if (byCode !== undefined) {
    // a code that only says the request was bad (AWS's ValidationException) yields to the
    // provider's wording that says which: the model does not exist (as a 400 would)
    if (byCode.category === "invalid_request") {
      const model = found.find((e) => e.category === "model_not_found" && e.match.code === undefined)
      if (model !== undefined) return byEntry(model, text)
    }
    return byEntry(byCode, text)
  }
  const byMessage = found.find((e) => e.match.code === undefined && e.match.type === undefined && e.match.errorClass === undefined && e.match.message !== undefined)
  const worded = wordingOf(text)
  if (byMessage !== undefined && (worded === null || WORD_ORDER.indexOf(byMessage.category) <= WORD_ORDER.indexOf(worded.category))) {
    return byEntry(byMessage, text)
  }
  if (worded !== null) return verdict(worded.category, text, { kind: "wording", name: worded.name })
  if (f.transportError !== null) return verdict("transport", text, { kind: "wording", name: "transport" })
  const byClass = found.find((e) => e.match.errorClass !== undefined)
  if (byClass !== undefined) return byEntry(byClass, text)
  const byType = found.find((e) => e.match.type !== undefined)
  if (byType !== undefined) return byEntry(byType, text)
  return verdict("unknown", text, { kind: "status", name: "none" })
}

// ---------------------------------------------------------------------------------------------
// Rate-limit kind

/** The abbreviation standing alone, also between underscores or slashes (`limit_rpd/`). */
const KIND_ABBR_RE = /(?<![A-Za-z0-9])(RPM|RPH|RPD|TPM|TPD|IPM|IPD)(?![A-Za-z0-9])/i
/** `tokens per min`, `Tokens per Minute`, `requests_per_day`, `RequestsPerMinute`, `tokens per 1 minute`. */
const KIND_WORDS_RE = /(?:\b|(?<=[a-z_])(?=[A-Z])|(?<=_))([Rr]equests?|REQUESTS?|[Tt]okens?|TOKENS?|[Ii]mages?|IMAGES?)(?:\s{1,4}|[_-]?)(?:Per(?:Model|Project|User|Region|Location)){0,3}(?:[Pp]er|PER)(?:\s{1,4}|[_-]?)(?:1\s)?([Mm]in(?:ute)?s?|MIN(?:UTE)?S?|[Hh]our|HOUR|[Dd]ay|DAY)(?![a-z])/
/** `5 requests/min`, `10 requests per 60 seconds`. */
const KIND_SLASH_RE = /\b(requests?|reqs?|calls?|tokens?|images?)[ \t]?\/[ \t]?(min(?:ute)?|hour|day)\b|\b(requests?|tokens?|images?) per 60 ?s(?:ec(?:ond)?s?)?\b/i
/** The period as an adjective before the resource: `daily limit of 100 requests`, `hourly request limit`, `per-day request quota`. */
const KIND_PERIOD_FIRST_RE = /\b(daily|hourly|per[- ]day|per[- ]hour)\b[^.\n]{0,32}?\b(request|token|image|call)s?\b/i
/** OpenRouter's limit names: `free-models-per-day`, `free-models-per-min`. */
const KIND_MODELS_PER_RE = /\bmodels?-per-(min|day)\b/i
const KIND_DAILY_RE = /\bdaily (?:\w+ )?(request|token|image)s?\b|\b(request|token|image)s? per day\b/i
const KIND_ZH_RE = /(每分钟|每小时|每日|每天|当日|今日)/
/** An API gateway's request policy: `policy ip over ratelimit,limit:5,time:1 minute` (Huawei APIG). */
const KIND_POLICY_TIME_RE = /\blimit:\d{1,9},\s?time:1 (minute|hour|day)\b/i
/**
 * The resource and the period apart: Anthropic's "request tokens has exceeded your per-minute rate
 * limit", OpenAI's older "on tokens_usage_based per min".
 */
const KIND_TOKENS_GAP_RE = /\btokens?(?:_[a-z]{1,12}){0,3}\b[^.\n]{0,48}?\bper[- ](min(?:ute)?|hour|day)\b/i
const KIND_REQUESTS_GAP_RE = /\b(?:requests?|calls?|messages?)\b[^.\n]{0,48}?\bper[- ](min(?:ute)?|hour|day)\b/i

/** RPM/RPH/RPD/TPM/TPD/IPM/IPD named by abbreviation or in words (English, Chinese); else `unknown`. */
export function rateLimitKindOf(text: string): RateLimitKind {
  const abbr = KIND_ABBR_RE.exec(text)
  if (abbr !== null) return abbr[1].toUpperCase() as RateLimitKind
  const words = KIND_WORDS_RE.exec(text)
  if (words !== null) return kindOf(words[1], words[2])
  const daily = KIND_DAILY_RE.exec(text)
  if (daily !== null) return kindOf(daily[1] ?? daily[2] ?? "request", "day")
  const slash = KIND_SLASH_RE.exec(text)
  if (slash !== null) return slash[1] !== undefined ? kindOf(slash[1], slash[2]) : kindOf(slash[3], "min")
  const first = KIND_PERIOD_FIRST_RE.exec(text)
  if (first !== null) return kindOf(first[2] === "call" ? "request" : first[2], /day|daily/i.test(first[1]) ? "day" : "hour")
  const perModels = KIND_MODELS_PER_RE.exec(text)
  if (perModels !== null) return kindOf("request", perModels[1])
  const tokens = KIND_TOKENS_GAP_RE.exec(text)
  if (tokens !== null) return kindOf("token", tokens[1])
  const requests = KIND_REQUESTS_GAP_RE.exec(text)
  if (requests !== null) return kindOf("request", requests[1])
  const policy = KIND_POLICY_TIME_RE.exec(text)
  if (policy !== null) return kindOf("request", policy[1] === "minute" ? "min" : policy[1])
  const zh = KIND_ZH_RE.exec(text)
  if (zh !== null) {
    const unit = zh[1] === "每分钟" ? "min" : zh[1] === "每小时" ? "hour" : "day"
    const resource = /token|令牌/i.test(text) ? "token" : /图片|图像|image/i.test(text) ? "image" : "request"
    return kindOf(resource, unit)
  }
  return "unknown"
}

function kindOf(resource: string, rawUnit: string): RateLimitKind {
  const r = resource[0].toLowerCase()
  const unit = rawUnit.toLowerCase()
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
