/**
 * A successful call of the LLM API in a record (CONTRACT section 3): a status below 400 with an
 * LLM endpoint, a model or an API host. Calls are counted per minute by service, model and
 * provider, never stored, so this reads only what the count is keyed by, with a few regexes —
 * not the parser's extractors. It runs on the records the pre-filter let go that hold a call word
 * (`LineSignal.Call`, `CALL_WORDS_RE`): access-log lines, httpx's `HTTP Request:` lines, JSON
 * request logs with a `statusCode`, gateways' request logs.
 */
import { providerOfHost, providerOfHosts, providerOfName } from "../catalog/index.js"
import { epochMsOf, findTimestamp, timeValue } from "./time.js"

export interface CallSeen {
  readonly status: number
  readonly model: string | null
  readonly provider: string | null
  /** The record's `service` field, when it has one. */
  readonly service: string | null
  /** The record's own time (epoch ms), when it has one. */
  readonly occurredAt: number | null
}

/** The status of the answer: a JSON status key, a status line or an access log's, logfmt. */
const STATUS_RE =
  /"(?:status|statusCode|status_code|http_?status|httpStatus|response_status|responseStatus)"\s*:\s*"?([1-5]\d\d)\b|\bHTTP\/\d(?:\.\d)?"?\s+([1-5]\d\d)\b|\b(?:status|status_code|statusCode|http_status)[=:]\s?"?([1-5]\d\d)\b/i

/** An LLM endpoint in a URL or path. */
const ENDPOINT_RE =
  /\/(?:chat\/completions|completions|embeddings|audio\/(?:speech|transcriptions)|images\/generations|v1\/messages|v1\/responses|rerank|api\/(?:chat|generate|embed))\b|:(?:stream)?generateContent\b|\/model\/[^/\s"]{1,160}\/(?:invoke|converse)/i

/** The model: a JSON `model` value, `model=...`, Gemini's and Bedrock's URL paths. */
const MODEL_RE =
  /"model"\s*:\s*"([^"\\]{1,160})"|\bmodel[=:] ?"?([A-Za-z0-9][\w.:/@+-]{0,159})|\/models\/([\w.-]{1,100}):(?:stream)?generateContent|\/model\/([^/\s"?]{1,160})\/(?:invoke|converse)/

const PROVIDER_RE = /"(?:provider|custom_llm_provider)"\s*:\s*"([^"\\]{1,64})"/
const SERVICE_RE = /"(?:service|service\.name|app)"\s*:\s*"([^"\\]{1,100})"|\bservice=([\w.:@/-]{1,100})/
const TIME_KEY_RE = /"(?:time|timestamp|@timestamp|ts)"\s*:\s*(?:"([^"\\]{8,40})"|(\d{9,16}(?:\.\d+)?))/

/** At most this much of a record is read (a request log may carry a long body). */
const MAX_CHARS = 8192

/** The successful call the record shows, or null (no status, a failure status, nothing of an LLM call). */
export function callOf(record: string): CallSeen | null {
  const text = record.length > MAX_CHARS ? record.slice(0, MAX_CHARS) : record
  const s = STATUS_RE.exec(text)
  if (s === null) return null
  const status = Number(s[1] ?? s[2] ?? s[3])
  if (status >= 400) return null
  const m = MODEL_RE.exec(text)
  const model = m === null ? null : (m[1] ?? m[2] ?? m[3] ?? m[4] ?? null)
  const host = providerOfCallHost(text)
  if (model === null && host === null && !ENDPOINT_RE.test(text)) return null
  const p = host === null ? PROVIDER_RE.exec(text) : null
  const sv = SERVICE_RE.exec(text)
  return {
    status,
    model: model === null ? null : model.replace(/[",;)\]}]+$/, ""),
    provider: host ?? (p === null ? null : providerOfName(p[1]!)),
    service: sv === null ? null : (sv[1] ?? sv[2] ?? null),
    occurredAt: timeOf(text)
  }
}

const URL_HOST_RE = /\bhttps?:\/\/([A-Za-z0-9][A-Za-z0-9.-]{0,252})/
/** Providers of the URL hosts seen in calls: a service calls the same few hosts all day. */
const hostMemo = new Map<string, string | null>()
const HOST_MEMO_MAX = 256

/**
 * The provider of the API host the call went to: the host of its URL, looked up once per host;
 * the catalogue's host scan over the whole record only when the URL names no API host of it (a
 * relay) or there is no URL. The scan was half of counting a call.
 */
function providerOfCallHost(text: string): string | null {
  const u = URL_HOST_RE.exec(text)
  if (u !== null) {
    let found = hostMemo.get(u[1]!)
    if (found === undefined) {
      if (hostMemo.size >= HOST_MEMO_MAX) hostMemo.clear()
      found = providerOfHost(u[1]!)
      hostMemo.set(u[1]!, found)
    }
    if (found !== null) return found
  }
  return providerOfHosts(text)?.provider ?? null
}

function timeOf(text: string): number | null {
  const k = TIME_KEY_RE.exec(text)
  // epoch numbers (pino's `"time": 1795…`) without a detour through an ISO string
  if (k !== null && k[2] !== undefined) return epochMsOf(Number(k[2]))
  const iso = k !== null ? timeValue(k[1] ?? Number(k[2])) : findTimestamp(text)
  if (iso === null) return null
  const t = Date.parse(iso)
  return Number.isNaN(t) ? null : t
}
