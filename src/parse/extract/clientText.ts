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
const DOTNET_RE = /\bHTTP ([45]\d\d) \(([A-Za-z_][\w.]{0,60}): ([A-Za-z_][\w.]{0,60})\)/
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
      setErrorType(d, m[2])
      setCode(d, m[3])
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
