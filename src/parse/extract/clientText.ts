/**
 * Extractor: the error texts of client libraries that print the body's fields their own way —
 * OpenAI's .NET SDK (`HTTP 429 (insufficient_quota: credit_balance_exhausted)`: status, then
 * type and code) and Go clients printing the decoded error object as a map
 * (`map[code:model_not_found message:The model ... param:<nil> type:invalid_request_error]`).
 */
import { type Draft, isNullWord, setCode, setErrorType, setMessage, setStatus } from "../draft.js"

/** Azure SDKs' RequestFailedException and similar prints: `Status: 400 (Bad Request)`, `ErrorCode: x`, `Code: x`. */
const STATUS_LINE_RE = /^Status: ([45]\d\d)\b/m
const CODE_LINE_RE = /^(?:Error)?Code: ([A-Za-z_][\w.]{0,60})[ \t]*$/m
const DOTNET_RE = /\bHTTP ([45]\d\d) \(([A-Za-z_][\w.]{0,60}): ([A-Za-z_][\w.]{0,60})\)/
const GO_MAP_RE = /\bmap\[(?:code|message|param|type|status):/
/** A key of the Go map and its value: up to the next known key or the closing bracket. */
const GO_FIELD_RE = /(?:^|\s|\[)(code|message|param|type|status):([^\]\n]*?)(?=\s(?:code|message|param|type|status):|\]|$)/g

export function readClientText(s: string, d: Draft): void {
  if (s.indexOf("Code: ") !== -1 || s.indexOf("Status: ") !== -1) {
    const code = CODE_LINE_RE.exec(s)
    const status = STATUS_LINE_RE.exec(s)
    if (code !== null || status !== null) d.from = "client-text"
    if (status !== null) setStatus(d, Number(status[1]), status[0])
    if (code !== null) setCode(d, code[1])
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
