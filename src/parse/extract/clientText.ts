/**
 * Extractor: the error texts of client libraries that print the body's fields their own way —
 * OpenAI's .NET SDK (`HTTP 429 (insufficient_quota: credit_balance_exhausted)`: status, then
 * type and code), Go clients printing the decoded error object as a map
 * (`map[code:model_not_found message:The model ... param:<nil> type:invalid_request_error]`) or a
 * struct (`%+v`), and vLLM's repr of its error response.
 */
import { type Draft, isNullWord, setCode, setErrorType, setMessage, setStatus } from "../draft.js"

/** Azure SDKs' RequestFailedException and similar prints: `Status: 400 (Bad Request)`, `ErrorCode: x`, `Code: x`. */
const STATUS_LINE_RE = /^Status: ([45]\d\d)\b/m
/** `ErrorCode: 429` (Azure.Core), `Code: model_not_found`, the `code: AuthenticationError` line of an SDK's exception details. */
const CODE_LINE_RE = /^(?:Error)?[Cc]ode: ([A-Za-z0-9_][\w.]{0,60})[ \t]*$/m
/**
 * Go's `%+v` of an error struct (one-api / new-api logs): `{Error:{Message:user quota is not
 * enough Type:one_api_error Param: Code:insufficient_user_quota} StatusCode:403}`.
 */
const GO_STRUCT_RE = /\{Error:\{Message:([^\n{}]{0,1000}?) Type:([\w.-]{0,60}) Param:[^\n{}]{0,200}? Code:([\w.-]{0,60})\}(?: StatusCode:([45]\d\d)\b)?/
/**
 * Rust clients' `{:?}` of the decoded error (async-openai's `ApiError { message: "…", type:
 * Some("invalid_request_error"), param: None, code: Some("invalid_api_key") }`).
 */
const RUST_OPTION_RE = /\b(code|r#type|type|kind): Some\("([^"\n]{1,80})"\)/g
/** vLLM's server log of its ErrorResponse (a pydantic repr): `object='error' message='…' type='NotFoundError' param=None code=404`. */
const PYDANTIC_ERROR_RE = /\bobject='error' message=(?:'((?:[^'\\\n]|\\.){0,2000})'|"((?:[^"\\\n]|\\.){0,2000})") type='([^'\n]{1,60})' param=[^\s]{1,60} code=(\d{3})\b/
/**
 * OpenAI's .NET SDK (`HTTP 429 (insufficient_quota: insufficient_quota)`, a `Parameter: x` line, a
 * blank line, the message) and Semantic Kernel's HttpOperationException of an Azure body whose
 * error has no type (`HTTP 429 (: 429)`).
 */
const DOTNET_RE = /\bHTTP ([45]\d\d) \(([A-Za-z_][\w.]{0,60})?: ([A-Za-z0-9_][\w.]{0,60})\)/
/**
 * google.golang.org/genai's APIError: `Error 429, Message: …, Status: RESOURCE_EXHAUSTED, Details: […]`
 * (googleapis/go-genai, APIError.Error()).
 */
const GENAI_GO_RE = /\bError ([45]\d\d), Message: ([^\n]{1,2000}?), Status: ([A-Z_]{3,40}), Details: /
/** google.golang.org/api's googleapi.Error: `googleapi: Error 429: message[, reason]`. */
const GOOGLEAPI_RE = /\bgoogleapi: Error ([45]\d\d): ([^\n]{1,2000})/
const GOOGLEAPI_REASON_RE = /, [a-z][A-Za-z]{2,40}$/
/**
 * requests' and huggingface_hub's HTTPError: `429 Client Error: Too Many Requests for url: <url>`,
 * then (huggingface_hub: hf_raise_for_status appends it) a blank line and the server's message.
 */
const HF_SERVER_MESSAGE_RE = /\b[45]\d\d (?:Client|Server) Error: [^\n]{0,80}? for url: [^\n]{1,600}\n\n([^\n]{1,2000})/
/**
 * langchain-google-genai wraps google-api-core's text (`{code} {message}`): `Invalid argument provided
 * to Gemini: 400 API key not valid. …`.
 */
const LANGCHAIN_GEMINI_RE = /\bInvalid argument provided to Gemini: ([45]\d\d) ([^\n]{1,2000})/
/**
 * huggingface_hub's errors without a status line (`BadRequestError: (Request ID: …)`, a blank line,
 * `Bad request:`, the server's message).
 */
const HF_REQUEST_ID_MESSAGE_RE = /(?:^|: )\(Request ID: [^)\n]{1,200}\)\n\n(?:Bad request:\n)?([^\n]{1,2000})/m
/**
 * LiteLLM names the upstream in its message (`litellm.ServiceUnavailableError: OllamaException - {…}`,
 * BerriAI/litellm's exception_mapping_utils: `{Provider}Exception - {original}`): the name is a
 * provider marker even when the body's message becomes the message.
 */
const LITELLM_UPSTREAM_RE = /\b([A-Z][A-Za-z]{2,30}Exception) - /
/** grpc-go's status error: `rpc error: code = ResourceExhausted desc = <message>`. */
const GRPC_GO_DESC_RE = /\brpc error: code = [A-Z][A-Za-z]{2,40} desc = ([^\n]{1,2000})/
/**
 * @google/generative-ai (JS): `[GoogleGenerativeAI Error]: Error fetching from <url>: [429 Too Many
 * Requests] <message>`.
 */
const GOOGLE_GENAI_JS_RE = /\[GoogleGenerativeAI Error\]: Error fetching from [^\s]{1,500}: \[[45]\d\d[^\]\n]{0,60}\] ([^\n]{1,2000})/
const GO_MAP_RE = /\bmap\[(?:code|message|param|type|status):/
/** A key of the Go map and its value: up to the next known key or the closing bracket. */
const GO_FIELD_RE = /(?:^|\s|\[)(code|message|param|type|status):([^\]\n]*?)(?=\s(?:code|message|param|type|status):|\]|$)/g

export function readClientText(s: string, d: Draft): void {
  if (s.indexOf("{Error:{") !== -1) {
    const g = GO_STRUCT_RE.exec(s)
    if (g !== null) {
      d.from = "client-text"
      if (g[4] !== undefined) setStatus(d, Number(g[4]), g[0])
      setMessage(d, g[1])
      if (g[2] !== "") setErrorType(d, g[2])
      if (g[3] !== "") setCode(d, g[3])
      d.hasBody = true
    }
  }
  if (s.indexOf(": Some(\"") !== -1) {
    // the body reader took the Option's constructor for the value (`type: Some("…")` → `Some`)
    if (d.errorType === "Some") d.errorType = null
    if (d.code === "Some") d.code = null
    RUST_OPTION_RE.lastIndex = 0
    let r: RegExpExecArray | null
    let n = 0
    while ((r = RUST_OPTION_RE.exec(s)) !== null && n++ < 8) {
      d.from = "client-text"
      if (r[1] === "code") setCode(d, r[2])
      else if (r[1] !== "kind") setErrorType(d, r[2])
    }
  }
  if (s.indexOf("object='error'") !== -1) {
    const p = PYDANTIC_ERROR_RE.exec(s)
    if (p !== null) {
      d.from = "client-text"
      setMessage(d, p[1] ?? p[2])
      setErrorType(d, p[3])
      setCode(d, Number(p[4]))
      d.hasBody = true
    }
  }
  if (s.indexOf("ode: ") !== -1 || s.indexOf("Status: ") !== -1) {
    const code = CODE_LINE_RE.exec(s)
    const status = STATUS_LINE_RE.exec(s)
    if (code !== null || status !== null) d.from = "client-text"
    if (status !== null) setStatus(d, Number(status[1]), status[0])
    if (code !== null) {
      setCode(d, code[1])
      d.explicitCode = true
    }
  }
  if (s.indexOf("HTTP ") !== -1 && s.indexOf(": ") !== -1) {
    const m = DOTNET_RE.exec(s)
    if (m !== null) {
      d.from = "client-text"
      setStatus(d, Number(m[1]), m[0])
      if (m[2] !== undefined) setErrorType(d, m[2])
      setCode(d, m[3])
      // the message is the first line after the blank line that follows (openai-dotnet's
      // ClientResultException, Semantic Kernel's HttpOperationException wrapping it)
      const end = m.index + m[0].length
      const blank = s.indexOf("\n\n", end)
      if (blank !== -1 && blank - end < 300) {
        const nl = s.indexOf("\n", blank + 2)
        const line = s.slice(blank + 2, nl === -1 ? Math.min(s.length, blank + 2002) : nl).trim()
        if (line !== "" && !line.startsWith("Status: ")) setMessage(d, line)
      }
    }
  }
  if (s.indexOf(", Message: ") !== -1) {
    const g = GENAI_GO_RE.exec(s)
    if (g !== null) {
      d.from = "client-text"
      setStatus(d, Number(g[1]), g[0])
      setMessage(d, g[2])
      setErrorType(d, g[3])
      if (d.providerHints.length < 8) d.providerHints.push(g[0])
    }
  }
  if (s.indexOf("googleapi: Error ") !== -1) {
    const g = GOOGLEAPI_RE.exec(s)
    if (g !== null) {
      d.from = "client-text"
      setStatus(d, Number(g[1]), g[0])
      setMessage(d, g[2].replace(GOOGLEAPI_REASON_RE, ""))
      if (d.providerHints.length < 8) d.providerHints.push("googleapi: Error " + g[1])
    }
  }
  if (s.indexOf(" for url: ") !== -1 && s.indexOf("\n\n") !== -1) {
    const h = HF_SERVER_MESSAGE_RE.exec(s)
    if (h !== null) {
      d.from = "client-text"
      setMessage(d, h[1].trim())
    }
  }
  if (s.indexOf("(Request ID: ") !== -1 && s.indexOf("\n\n") !== -1) {
    const h = HF_REQUEST_ID_MESSAGE_RE.exec(s.length > 8192 ? s.slice(0, 8192) : s)
    if (h !== null) {
      d.from = "client-text"
      setMessage(d, h[1].trim())
    }
  }
  if (s.indexOf("Exception - ") !== -1 && s.indexOf("litellm") !== -1) {
    const u = LITELLM_UPSTREAM_RE.exec(s.length > 8192 ? s.slice(0, 8192) : s)
    if (u !== null && d.providerHints.length < 8) d.providerHints.push(u[1])
  }
  if (s.indexOf("provided to Gemini: ") !== -1) {
    const g = LANGCHAIN_GEMINI_RE.exec(s)
    if (g !== null) {
      d.from = "client-text"
      setStatus(d, Number(g[1]), g[0])
      setMessage(d, g[2].trim())
    }
  }
  if (s.indexOf("rpc error: code = ") !== -1) {
    const g = GRPC_GO_DESC_RE.exec(s)
    if (g !== null) {
      d.from = "client-text"
      setMessage(d, g[1].trim())
    }
  }
  if (s.indexOf("[GoogleGenerativeAI Error]") !== -1) {
    const g = GOOGLE_GENAI_JS_RE.exec(s)
    if (g !== null) {
      d.from = "client-text"
      setMessage(d, g[1].trim())
    }
  }
  if (s.indexOf("map[") !== -1) {
    const at = s.search(GO_MAP_RE)
    if (at === -1) return
    const end = s.indexOf("]", at)
    const body = s.slice(at + 4, end === -1 ? Math.min(s.length, at + 4000) : end + 1)
    d.from = "client-text"
    GO_FIELD_RE.lastIndex = 0
    let f: RegExpExecArray | null
    let n = 0
    while ((f = GO_FIELD_RE.exec(body)) !== null && n++ < 8) {
      const v = f[2].trim()
      if (v === "" || v === "<nil>" || isNullWord(v)) continue
      if (f[1] === "code") setCode(d, v)
      else if (f[1] === "message") setMessage(d, v)
      else if (f[1] === "type") setErrorType(d, v)
    }
    if (d.code !== null || d.message !== null) d.hasBody = true
  }
}
