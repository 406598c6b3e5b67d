/**
 * Extractor: JSON log objects (pino, winston, bunyan, structlog, Vector / Fluent Bit records) and
 * the serialized exceptions inside them (`err`, `error` with a stack, `exception`).
 */
import { type Draft, MAX_DEPTH, getPath, isRecord, note, setBodyStatus, setClass, setCode, setModel, setRequestId, setStatus, str, toStatus } from "../draft.js"
import { providerOfName } from "../../catalog/index.js"
import { readBody, readBodyValue, readErrorMember } from "./errorBody.js"
import { readText } from "./freeText.js"
import { LLM_PATH_RE, notePath, readHints, readModelInPath } from "./hints.js"
import { TRANSPORT_CODE_RE } from "./transport.js"
import { findStatus } from "./statusText.js"

const STATUS_PATHS: ReadonlyArray<ReadonlyArray<string>> = [
  ["status"],
  ["statusCode"],
  ["status_code"],
  // Envoy's (Istio's, Higress') JSON access log
  ["response_code"],
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
  ["error", "statusCode"],
  ["$metadata", "httpStatusCode"],
  ["http_status"],
  ["httpStatus"],
  // PHP's curl_getinfo name, kept by the wrappers PHP applications log
  ["http_code"],
  ["httpCode"],
  ["error", "$metadata", "httpStatusCode"],
  // Google Cloud Logging's HttpRequest
  ["httpRequest", "status"],
  ["err", "$metadata", "httpStatusCode"]
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
  ["details"],
  ["data"]
]

/**
 * The log message: pino/winston/bunyan `msg`/`message`, Docker's `log`, structlog's `event`,
 * Serilog's rendered `@m`, Microsoft.Extensions.Logging's JSON `Message`, GCP's `textPayload`.
 */
const TEXT_KEYS = ["msg", "message", "log", "event", "@m", "Message", "textPayload"] as const

const STATUS_DIGITS_RE = /\b[45]\d\d\b/

/** Where an application's request log or error wrapper says what its upstream answered. */
const WRAPPER_TEXT_KEYS = ["msg", "message", "error", "log", "event"] as const

/**
 * Exception texts, read before the log message: structlog's `exception`, python-json-logger's
 * `exc_info`, logstash-logback-encoder's `stack_trace`, log4j2 ECS's `error.stack_trace`, Serilog's
 * `@x`, Microsoft.Extensions.Logging's JSON `Exception`.
 */
const EXCEPTION_KEYS = ["exception", "exc_info", "exc_text", "stack_trace", "error.stack_trace", "@x", "Exception"] as const

/**
 * An exception's class and message in two keys, read as the `Class: message` line its runtime
 * prints: OpenTelemetry's `exception.type` / `exception.message`, ECS's `error.type` / `error.message`
 * (log4j2 JsonTemplateLayout), AWS Lambda's `errorType` / `errorMessage`.
 */
const EXCEPTION_PAIRS: ReadonlyArray<readonly [string, string]> = [
  ["exception.type", "exception.message"],
  ["error.type", "error.message"],
  ["errorType", "errorMessage"]
]

/**
 * Objects that hold the log record itself in a framework's envelope: loguru's serialized `record`,
 * Rust tracing's JSON `fields`, GCP's exported `jsonPayload`, OpenTelemetry's `attributes`.
 */
const ENVELOPE_KEYS = ["record", "fields", "jsonPayload", "attributes"] as const

const ENVELOPE_SET: ReadonlySet<string> = new Set(ENVELOPE_KEYS)

/** The key and value of an object with exactly one key, else null. */
function soleValue(o: Record<string, unknown>): readonly [string, unknown] | null {
  let found: readonly [string, unknown] | null = null
  for (const k in o) {
    if (found !== null) return null
    found = [k, o[k]]
  }
  return found
}

/**
 * The dotted keys of `o` (`fields.err.message`) as nested objects, or null when it has none. Keys
 * that are the dotted names of conventions read as they are (`http.status_code`, `error.type`)
 * are nested too: reading them twice changes nothing, every field being first-writer-wins.
 */
function unflattened(o: Record<string, unknown>): Record<string, unknown> | null {
  let out: Record<string, unknown> | null = null
  let n = 0
  for (const k in o) {
    if (++n > 256) break
    const dot = k.indexOf(".")
    if (dot <= 0 || dot === k.length - 1) continue
    const parts = k.split(".")
    if (parts.length > 6 || parts.some((p) => p === "")) continue
    out ??= {}
    let at: Record<string, unknown> = out
    let ok = true
    for (let i = 0; i < parts.length - 1; i++) {
      const next = at[parts[i]!]
      if (next === undefined) at = at[parts[i]!] = {} as Record<string, unknown>
      else if (isRecord(next)) at = next
      else {
        ok = false
        break
      }
    }
    const last = parts[parts.length - 1]!
    if (ok && at[last] === undefined) at[last] = o[k]
  }
  return out
}

const SERVICE_KEYS = ["service", "app", "service_name", "serviceName", "application", "name"] as const

export function readLogObject(o: Record<string, unknown>, d: Draft, depth: number): void {
  if (depth > MAX_DEPTH) return
  const outer = d.from
  if (outer !== "webhook") d.from = "json-log"
  // a serialized AWS SDK exception: `{"name": "ThrottlingException", "$fault": "client", "$metadata": {…}}`
  const awsName = str(o["__type"]) ?? (o["$fault"] !== undefined || isRecord(o["$metadata"]) ? str(o["name"]) ?? str(o["Code"]) : null)
  if (awsName !== null) {
    const name = awsName.slice(awsName.lastIndexOf("#") + 1)
    if (EXCEPTION_NAME_RE.test(name)) {
      setCode(d, name)
      setClass(d, name)
      d.explicitCode = true
    }
  }
  // a framework's envelope holds the record (and its exception) before the envelope's own fields
  // (an OpenTelemetry log record's `body` is only its message)
  for (const k of ENVELOPE_KEYS) {
    const v = o[k]
    if (isRecord(v)) readLogObject(v, d, depth + 1)
  }
  // an object that is only a wrapper of another (`{"response": {"error": "…", "http_code": 429, …}}`)
  const only = soleValue(o)
  if (only !== null && !ENVELOPE_SET.has(only[0]) && isRecord(only[1])) readLogObject(only[1], d, depth + 1)
  // An application's own request log (`method`, `url`, `status_code` of the answer it gave its
  // client) whose message reports the failed upstream call's status (`… status code: 429, message:
  // …`): the upstream's status is the call's, the log's is the application's.
  // The same for an application's error wrapper whose `details` hold the upstream's body
  // (`{'error': 'DeepSeek API error: 400 Bad Request', 'status': 500, 'details': {'error': {…}}}`).
  const wrapper = isRecord(o["details"]) && (typeof o["error"] === "string" || typeof o["message"] === "string")
  if (wrapper || (typeof o["method"] === "string" && (typeof o["url"] === "string" || typeof o["path"] === "string"))) {
    const own = toStatus(o["status_code"]) ?? toStatus(o["status"]) ?? toStatus(o["statusCode"])
    for (const k of WRAPPER_TEXT_KEYS) {
      const v = o[k]
      // only a message that names another failure status than the log's own is looked at
      if (typeof v !== "string" || v.length > 4096 || own === null || v.indexOf(String(own)) !== -1 || !STATUS_DIGITS_RE.test(v)) continue
      const found = findStatus(v, -1, -1)
      if (found !== null && found.index >= 0) {
        setStatus(d, found.status, v.slice(Math.max(0, found.index - 40), found.index + 40))
        break
      }
    }
  }
  for (const path of STATUS_PATHS) {
    if (d.status !== null) break
    setStatus(d, toStatus(getPath(o, path)))
  }
  for (const path of BODY_PATHS) readBodyValue(getPath(o, path), d, depth, path[0] !== "data")
  // the upstream's answer kept as the text it came in (`"response": "{\"code\":700002,…}"`)
  if (typeof o["response"] === "string") readBodyValue(o["response"], d, depth, true)

  const error = o["error"]
  if (isRecord(error)) {
    if (isExceptionObject(error)) readErrorObject(error, d, depth)
    else d.hasBody = readErrorMember(error, d, depth) || d.hasBody
  } else if (typeof error === "string") {
    readBodyValue(error, d, depth, true)
  } else if (Array.isArray(error) || (o["success"] === false && Array.isArray(o["errors"]))) {
    // Cloudflare's envelope: `{"success": false, "errors"|"error": [{"code": 2005, "message": "…"}]}`
    const first = ((Array.isArray(error) ? error : o["errors"]) as unknown[])[0]
    if (isRecord(first) && (typeof first["message"] === "string" || first["code"] !== undefined)) {
      d.hasBody = readErrorMember(first, d, depth) || d.hasBody
    }
  }
  // the Responses API's `response.failed` event: `{"type": "response.failed", "response": {"error": {…}}}`
  const response = o["response"]
  if (error === undefined && isRecord(response) && isRecord(response["error"])) {
    d.hasBody = readErrorMember(response["error"], d, depth) || d.hasBody
  }
  // an OpenAI object that failed on the service's side (a run, a vector store file, a fine-tuning
  // job): `{"object": "vector_store.file", "status": "failed", "last_error": {"code": …, "message": …}}`
  const lastError = o["last_error"]
  if (error === undefined && isRecord(lastError) && typeof lastError["message"] === "string") {
    d.hasBody = readErrorMember(lastError, d, depth) || d.hasBody
  }
  const err = o["err"]
  if (isRecord(err)) readErrorObject(err, d, depth)
  else if (typeof err === "string") readText(err, d, depth + 1)
  for (const k of EXCEPTION_KEYS) {
    const v = o[k]
    if (typeof v === "string") {
      if (v !== "") readText(lastExceptionLine(v), d, depth + 1)
    } else if (v !== undefined && v !== null && typeof v === "object") {
      readExceptionValue(v, d, depth + 1)
    }
  }
  for (const [tk, mk] of EXCEPTION_PAIRS) {
    const m = o[mk]
    if (typeof m !== "string" || m === "") continue
    const t = str(o[tk])
    readText(exceptionLine(t, m), d, depth + 1)
  }
  const thrown = o["thrown"]
  // log4j2 JsonLayout's `thrown`: {name, message, localizedMessage, extendedStackTrace}
  if (isRecord(thrown)) readExceptionValue(thrown, d, depth + 1)

  // The object itself may be an error body: the service's `{code, message, data}`.
  if (
    (o["code"] !== undefined && o["code"] !== null && (typeof o["message"] === "string" || typeof o["msg"] === "string")) ||
    // `{"errorCode": "InvalidApiKey", "errorMessage": "…"}`, `{"error_code": 17, "error_msg": "…"}`
    ((o["errorCode"] ?? o["error_code"]) !== undefined && typeof (o["errorMessage"] ?? o["error_msg"] ?? o["error_message"]) === "string")
  ) {
    d.hasBody = readBody(o, d, depth) || d.hasBody
  } else if (typeof o["error_code"] === "number" && o["error_code"] !== 0 && typeof o["text"] === "string") {
    // FastChat's worker answer in place of a stream chunk: `{"text": "<the error>", "error_code": 50001}`
    setCode(d, o["error_code"])
    d.explicitCode = true
    readMessageText(o["text"], d, depth + 1)
    d.hasBody = readBody(o, d, depth) || d.hasBody
  } else if (typeof o["detail"] === "string" && toStatus(o["status"]) !== null) {
    d.hasBody = readBody(o, d, depth) || d.hasBody
  } else if (isRecord(o["base_resp"])) {
    // MiniMax's response, whose base_resp says it failed (often with HTTP 200)
    d.hasBody = readBody(o, d, depth) || d.hasBody
  } else if (isRecord(o["detail"]) && o["error"] === undefined && d.message === null) {
    // FastAPI's HTTPException body with an object as its detail: `{"detail": {"code": 401, "msg": "…"}}`
    d.hasBody = readBody(o["detail"], d, depth + 1) || d.hasBody
  } else if (typeof o["detail"] === "string" && d.message === null && onlyKey(o, "detail")) {
    // FastAPI's HTTPException body with a string detail, which an app re-raising an SDK's error
    // fills with that error's text: `{"detail": "500: Error code: 400 - {'error': {…}}"}`
    readMessageText(o["detail"], d, depth + 1)
  }

  if (d.timeObjects.length < 4) d.timeObjects.push(o)
  if (d.service === null) d.service = serviceOf(o)
  if (d.serviceFallback === null) d.serviceFallback = kubernetesServiceOf(o)
  scanObjectHints(o, d)

  for (const k of TEXT_KEYS) {
    const v = o[k]
    if (typeof v === "string" && v !== "") readMessageText(v, d, depth + 1)
  }
  // an OpenTelemetry span's exception event: `events: [{name: "exception", attributes: {…}}]`
  const events = o["events"]
  if (Array.isArray(events) && d.status === null) {
    for (let i = 0; i < events.length && i < 16; i++) {
      const ev = events[i]
      if (isRecord(ev) && ev["name"] === "exception" && isRecord(ev["attributes"])) {
        readLogObject(ev["attributes"], d, depth + 1)
        break
      }
    }
  }
  // a record whose nesting a log platform flattened into dotted keys (Axiom's and Datadog's
  // `fields.err.message`, `fields.err.status`): read as the nested object it was
  const nested = unflattened(o)
  if (nested !== null) readLogObject(nested, d, depth + 1)
  // an error kept under a key of the application's own (`system_error`, `$error`, `cause`,
  // `lastError`): read when nothing above said what failed
  if (d.message === null && d.status === null && !d.hasBody) {
    let n = 0
    for (const k in o) {
      if (n >= 4) break
      if (k === "error" || k === "err" || !OWN_ERROR_KEY_RE.test(k)) continue
      const v = o[k]
      if (typeof v === "string" && v.length > 8) {
        n++
        readText(lastExceptionLine(v), d, depth + 1)
      } else if (isRecord(v)) {
        n++
        readErrorObject(v, d, depth + 1)
      }
    }
  }
  d.from = outer
}

/** `o` has `key` and nothing else. */
function onlyKey(o: Record<string, unknown>, key: string): boolean {
  for (const k in o) if (k !== key) return false
  return true
}

const OWN_ERROR_KEY_RE = /error|exception|cause|fail|trace(?![_-]?id)/i

/**
 * A log or exception message: parsed as text, unless status and error body are already known,
 * in which case it can only add hints (a model, a request id).
 */
function readMessageText(v: string, d: Draft, depth: number): void {
  if (d.status !== null && d.hasBody && d.message !== null) readHints(v, d)
  else readText(v, d, depth)
}

/** A class name as an exception type key holds it (`openai.RateLimitError`, `com.acme.FooException`). */
const EXCEPTION_TYPE_RE = /^[A-Za-z_][\w.$]{0,200}$/

/** An exception's class and message as the `Class: message` line its runtime prints (the message alone when the type is no class name). */
const exceptionLine = (type: string | null, message: string): string => (type !== null && EXCEPTION_TYPE_RE.test(type) ? `${type}: ${message}` : message)

/**
 * A structured exception: loguru's `{type, value}`, Sentry's `{values: [{type, value, module}]}`
 * (the last is the one raised), structlog's dict_tracebacks `[{exc_type, exc_value}]` (the first
 * is the one raised), log4j2's `{name, message}`. Read as its `Class: message` line.
 */
function readExceptionValue(v: object, d: Draft, depth: number): void {
  let e: unknown = v
  if (Array.isArray(v)) e = v[0]
  else if (isRecord(v) && Array.isArray(v["values"])) e = v["values"][v["values"].length - 1]
  if (!isRecord(e)) return
  const t = str(e["exc_type"]) ?? str(e["type"]) ?? str(e["name"])
  const m = str(e["exc_value"]) ?? str(e["value"]) ?? str(e["message"])
  const module = str(e["module"])
  if (module !== null && module.length <= 200 && d.providerHints.length < 8) d.providerHints.push(module)
  if (m === null || m === "") {
    if (t !== null && EXCEPTION_TYPE_RE.test(t)) setClass(d, t)
    return
  }
  readText(exceptionLine(t, m), d, depth)
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
  // the stack's frames name the SDK (`/node_modules/openai/core/error.js`), as in a multi-line record
  const stack = e["stack"]
  if (typeof stack === "string" && stack.indexOf("\n") !== -1 && d.providerHints.length < 8) d.providerHints.push(stack.length > 2048 ? stack.slice(0, 2048) : stack)
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
    e["syscall"] !== undefined || (typeof code === "string" && TRANSPORT_CODE_RE.test(code)) ||
    // a Stainless SDK's APIError logged as a plain object (winston's json() without errors(): its own
    // properties `status`, `error`, `code`, `type`, no stack)
    (isRecord(e["error"]) && typeof e["message"] !== "string" && toStatus(e["status"]) !== null)
  )
}

/**
 * Keys that hold the model: `modelId` (IDE agents' error objects, Vercel AI SDK telemetry's
 * `ai.model.id`), `model_id` (Bedrock, Hugging Face), OpenTelemetry's `gen_ai.*.model`.
 */
const MODEL_KEYS = new Set([
  "model", "model_name", "modelName", "modelVersion", "modelId", "modelID", "model_id", "ai.model.id",
  "gen_ai.request.model", "gen_ai.response.model", "llm.model", "llm.model_name",
  // Azure OpenAI names the deployment where others name the model
  "deployment", "deployment_name", "deploymentName", "deployment_id", "deploymentId"
])

const NESTED_STATUS_KEYS = new Set(["status", "statusCode", "status_code", "http_status", "httpStatus"])

const REQUEST_ID_KEYS = new Set(["requestId", "request_id", "x-request-id", "xRequestId", "x_request_id", "request-id", "apim-request-id"])

const URL_KEYS = new Set(["url", "path", "endpoint", "uri", "originalUrl", "requestUrl", "http.url", "http.target", "url.full", "url.path", "target"])

const SKIP_KEYS = new Set(["messages", "stack", "headers_sent", "input", "prompt", "content"])

/** Keys that name the provider (LiteLLM's `custom_llm_provider`, OpenTelemetry's `gen_ai.system`). */
const PROVIDER_KEYS = new Set(["provider", "custom_llm_provider", "llm_provider", "model_provider", "gen_ai.system", "ai.model.provider", "provider_name"])
/** Keys whose value names a logger or module, which may name the SDK (`anthropic._base_client`). */
const LOGGER_KEYS = new Set(["logger", "logger_name", "loggerName", "module", "component", "name", "caller"])
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
      } else if (NESTED_STATUS_KEYS.has(k)) {
        // a failure status kept in an object of the application's own (`"context": {"status": 503}`)
        if (o !== root && typeof v === "number" && v >= 400 && v <= 599 && d.status === null && d.bodyStatus === null) setBodyStatus(d, v)
      } else if (REQUEST_ID_KEYS.has(k)) {
        setRequestId(d, v)
      } else if (URL_KEYS.has(k)) {
        if (typeof v === "string" && v.length > 0 && (v.charCodeAt(0) === 47 || v.startsWith("http"))) {
          notePath(d, v, false)
          // the model in the path (`/deployments/gpt-4o/`, `models/gemini-2.0-flash:generateContent`)
          if (d.model === null && v.length <= 2048) readModelInPath(v, d)
        }
      } else if (k === "stream") {
        if (typeof v === "boolean" && d.stream === null) d.stream = v
      } else if (PROVIDER_KEYS.has(k)) {
        if (typeof v === "string" && d.provider === null) {
          const named = providerOfName(v)
          if (named !== null) {
            d.provider = named
            note(d, "provider", `${k}: ${v}`)
          } else if (d.providerHints.length < 8) d.providerHints.push(v)
        }
      } else if (LOGGER_KEYS.has(k)) {
        if (typeof v === "string" && v.length <= 200 && d.providerHints.length < 8) d.providerHints.push(v)
      } else if (k === "raw" && typeof v === "string" && d.model === null) {
        // a gateway's copy of the upstream's answer (OpenRouter's `metadata.raw`) names the model
        readHints(v.length > 4096 ? v.slice(0, 4096) : v, d)
      } else if (typeof v === "string" && v.startsWith("http") && LLM_PATH_RE.test(v)) {
        notePath(d, v, false)
        if (d.model === null && v.length <= 2048) readModelInPath(v, d)
      }
    }
  }
}

/** An exception's class name in `name` (`ThrottlingException`, `TypeError`) is not a service. */
const EXCEPTION_NAME_RE = /^[A-Z][A-Za-z]{1,60}(?:Exception|Error)$/

function serviceOf(o: Record<string, unknown>): string | null {
  for (const k of SERVICE_KEYS) {
    const v = o[k]
    if (k === "name" && typeof v === "string" && EXCEPTION_NAME_RE.test(v)) continue
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
