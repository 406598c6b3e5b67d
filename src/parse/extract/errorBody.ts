/**
 * Extractor: API error bodies — OpenAI-style `{"error": {...}}`, the service's `{code, message,
 * data}`, FastAPI `{detail}`, problem+json, Anthropic `{type, error}`, Google's envelope — as JSON,
 * Python dict literals or JS object dumps, embedded in text or serialized into a string.
 */
import { looksLikeObject, parseLoose, parseLooseText, scanFields, type LooseResult } from "../loose-json.js"
import { type Draft, MAX_DEPTH, isRecord, normCode, setBodyStatus, setCode, setErrorType, setMessage, str, toStatus } from "../draft.js"
import { readText } from "./freeText.js"

/** A body value that may be an object, a JSON string or plain text. `textual`: plain text counts. */
export function readBodyValue(v: unknown, d: Draft, depth: number, textual: boolean): void {
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

/** Anthropic's error envelope, as the anthropic catalogue's weak marker reads it. */
const ANTHROPIC_ENVELOPE = '{"type":"error","error":{"type":'

const MESSAGE_KEYS = ["message", "msg", "error_msg", "errorMessage", "error_message", "detail", "error_description"] as const

/** Returns whether `o` is recognisably an error body. */
export function readBody(o: Record<string, unknown>, d: Draft, depth: number): boolean {
  if (depth > MAX_DEPTH + 2) return false
  const outer = d.from
  d.from = "error-body"
  d.jsonBody = true
  let recognized = false
  const err = o["error"]
  if (isRecord(err)) {
    recognized = readErrorMember(err, d, depth)
    // Anthropic's envelope (`{"type": "error", "error": {"type": "rate_limit_error", …}}`), however it
    // was printed (JSON, a Python dict): the catalogue's weak marker of it, for the provider
    if (o["type"] === "error" && typeof err["type"] === "string" && d.providerHints.length < 8) d.providerHints.push(ANTHROPIC_ENVELOPE)
  } else if (typeof err === "string" && err.trim() !== "") {
    if (looksLikeObject(err)) {
      const inner = parseLooseText(err)
      if (isRecord(inner)) recognized = readBody(inner, d, depth + 1)
    } else {
      // an SDK's message passed on as the body's `error`: `"429 You exceeded your current quota…"`
      const lead = LEADING_STATUS_RE.exec(err)
      if (lead !== null) setBodyStatus(d, Number(lead[1]))
      setMessage(d, lead === null ? err : err.slice(lead[0].length))
      recognized = true
    }
  }
  // MiniMax's envelope: `{"base_resp": {"status_code": 1008, "status_msg": "insufficient balance"}}`
  // (0 is success; the HTTP status is often 200)
  const br = o["base_resp"]
  if (!recognized && isRecord(br)) {
    const bc = normCode(br["status_code"])
    const bm = str(br["status_msg"])
    if (bc !== null && bc !== 0) {
      // only MiniMax's envelope has it: the catalogue's marker for MiniMax
      if (d.providerHints.length < 8) d.providerHints.push("base_resp")
      setCode(d, bc)
      if (bm !== null) setMessage(d, bm)
      recognized = true
    }
  }
  // an SDK error object dumped whole, the API's body kept as a string: the Vercel AI SDK's
  // APICallError (`{ url, statusCode: 401, responseBody: '{"error":{…}}' }`)
  // — or an application's error object whose `details` string is the API's body (`{ message:
  // 'Error: llmApiError', details: '{"error": {"code": 400, …}}' }`)
  // — or a client's log of the exchange, `{"status": 400, "body": "{\"error\": {…}}"}`, or an
  // axios error's `data` holding the API's `{"error": {…}}`
  const rb =
    o["responseBody"] ?? o["response_body"] ?? embeddedBody(o["details"]) ?? embeddedBody(o["detail"]) ?? embeddedBody(o["body"]) ??
    (isRecord(o["body"]) ? o["body"] : undefined) ?? (isRecord(o["data"]) && isRecord(o["data"]["error"]) ? o["data"] : undefined)
  if (!recognized && (typeof rb === "string" || isRecord(rb))) {
    readBodyValue(rb, d, depth + 1, false)
    d.from = "error-body"
    recognized = d.code !== null || d.errorType !== null
  }
  // Dify's PluginInvokeError: the upstream's error text in `args.description`, the wrapper's own
  // `message` a cut copy of it (`{"args": {"description": "[models] Error: API request failed with
  // status code 429: {…}"}, "error_type": "InvokeError", "message": "…"}`)
  const args = o["args"]
  if (!recognized && isRecord(args) && typeof args["description"] === "string" && args["description"].length <= 65536) {
    readBodyValue(args["description"], d, depth + 1, true)
    d.from = "error-body"
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
  // the API's body under `detail` / `details` of an application's error object
  const detail = o["detail"] ?? (isRecord(o["details"]) ? o["details"] : undefined)
  if (isRecord(detail)) recognized = readBody(detail, d, depth + 1) || recognized
  const code = normCode(o["code"] ?? o["error_code"] ?? o["errorCode"])
  if (code !== null) {
    setCode(d, code)
    if (typeof code === "number") setBodyStatus(d, code)
  }
  const type = str(o["type"])
  if (type !== null && type !== "error") setErrorType(d, type)
  const status = toStatus(o["status"]) ?? toStatus(o["statusCode"]) ?? httpStatusOf(o)
  if (status !== null) setBodyStatus(d, status)
  else grpcStatusOf(o["status"], d)
  // a field only one family's envelope has tells the provider (the catalogue's marker for it)
  if (o["raw_status_code"] !== undefined && d.providerHints.length < 8) d.providerHints.push('"raw_status_code":')
  const title = str(o["title"])
  if (title !== null && message === null) setMessage(d, title)
  d.from = outer
  return recognized || (code !== null && message !== null) || ((message !== null || title !== null) && status !== null)
}

/** A string member that holds a JSON object (an API's body kept as text), else undefined. */
function embeddedBody(v: unknown): string | undefined {
  return typeof v === "string" && v.length <= 65536 && looksLikeObject(v) ? v : undefined
}

/** The `error` member of an OpenAI-style body: `{message, type, code, param}`. */
export function readErrorMember(err: Record<string, unknown>, d: Draft, depth: number): boolean {
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
  if (d.limitDetail === null && Array.isArray(err["details"])) d.limitDetail = quotaIdOf(err["details"])
  const param = err["param"]
  const status = toStatus(err["status"]) ?? toStatus(err["statusCode"]) ?? httpStatusOf(err) ?? (isRecord(param) ? toStatus(param["statusCode"]) ?? httpStatusOf(param) : null)
  if (status !== null) setBodyStatus(d, status)
  else {
    grpcStatusOf(err["status"], d)
    // Google's envelope (`{"error": {"code": 429, "message": …, "status": "RESOURCE_EXHAUSTED"}}`), however
    // printed: the catalogue's marker of its `status`, for the provider (as in a multi-line record)
    if (typeof code === "number" && typeof err["status"] === "string" && d.errorType === err["status"] && d.providerHints.length < 8) {
      d.providerHints.push(`"status": "${err["status"]}"`)
    }
  }
  d.from = outer
  return message !== null || code !== null || type !== null
}

/** Google's `details`: the first QuotaFailure violation's `quotaId` (else its `quotaMetric`). */
function quotaIdOf(details: ReadonlyArray<unknown>): string | null {
  for (const item of details.slice(0, 8)) {
    if (!isRecord(item) || !Array.isArray(item["violations"])) continue
    for (const v of item["violations"].slice(0, 4)) {
      if (!isRecord(v)) continue
      const id = str(v["quotaId"]) ?? str(v["quotaMetric"])
      if (id !== null) return id.slice(0, 200)
    }
  }
  return null
}

/**
 * The HTTP status under the other names bodies and serialized exceptions give it: `http_code`
 * (MiniMax), `http_status`, `httpStatus`, `status_code`, `httpStatusCode` and the AWS SDK v3's
 * `$metadata.httpStatusCode`, Mistral's `raw_status_code`; else a gateway's `upstream_status` (Zed's, the status its upstream answered).
 */
export function httpStatusOf(o: Record<string, unknown>): number | null {
  const meta = o["$metadata"]
  return (
    toStatus(o["http_code"]) ?? toStatus(o["http_status"]) ?? toStatus(o["httpStatus"]) ?? toStatus(o["status_code"]) ??
    toStatus(o["httpStatusCode"]) ?? toStatus(o["http_status_code"]) ?? (isRecord(meta) ? toStatus(meta["httpStatusCode"]) : null) ??
    // Mistral's envelope: `{"object": "error", …, "code": "1300", "raw_status_code": 429}`
    toStatus(o["raw_status_code"]) ??
    // a gateway's error naming the status its upstream (the provider) answered
    toStatus(o["upstream_status"]) ?? toStatus(o["upstreamStatus"]) ?? toStatus(o["upstream_status_code"])
  )
}

/** A body message, which may itself be a JSON body serialized into the string. */
export function readMessageValue(message: string, d: Draft, depth: number): void {
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

interface FoundBody {
  readonly value: Record<string, unknown>
  readonly start: number
  readonly end: number
}

const BODY_KEYS = ["error", "code", "message", "msg", "detail", "status", "error_msg", "errorMessage", "title", "statusCode", "$metadata", "http_code", "http_status", "base_resp"]

const MAX_BODY_TRIES = 8

/** The first embedded object that looks like an error body (bounded number of attempts). */
export function findBody(s: string): FoundBody | null {
  let at = s.indexOf("{")
  let tries = 0
  while (at !== -1 && tries < MAX_BODY_TRIES) {
    tries++
    // Rust's io::Error debug print (`Os { code: 111, kind: ConnectionRefused, message: "Connection
    // refused" }`, inside reqwest's error): an errno, not an error body
    if (at >= 3 && s.startsWith("Os ", at - 3)) {
      at = s.indexOf("{", at + 1)
      continue
    }
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

/** Google's envelope names the gRPC status (`"status": "RESOURCE_EXHAUSTED"`): the error's type. */
function grpcStatusOf(v: unknown, d: Draft): void {
  if (typeof v === "string" && v.length >= 4 && v.length <= 40 && /^[A-Z]+(?:_[A-Z]+)*$/.test(v)) setErrorType(d, v)
}

const LEADING_STATUS_RE = /^\s{0,4}([45]\d\d) (?=[A-Z])/
