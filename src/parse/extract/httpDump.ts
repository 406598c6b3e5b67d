/**
 * Extractor: HTTP response dumps (`curl -i`, `curl -v`, access logs): the status line, and the
 * body after the headers when it is not JSON.
 */
import { firstNonSpace } from "../loose-json.js"
import { type Draft, lineAround, setMessage, setStatus } from "../draft.js"

const STATUS_LINE_RE = /(?:^|\n)[<>* \t]{0,4}HTTP\/\d(?:\.\d)?[ \t]+([1-5]\d\d)\b/

/** `HTTP/1.1 502 Bad Gateway` inside a line, or an access log's `"GET /x HTTP/1.1" 404`. */
const INLINE_STATUS_LINE_RE = /HTTP\/\d(?:\.\d)?"?[ \t]+([1-5]\d\d)\b/

const BODY_SPLIT_RE = /\n(?:<[ \t]*)?\r?\n/

/** An access log's request line before its status: `"POST /api/tasks HTTP/1.1" 500`. */
const ACCESS_REQUEST_RE = /"(?:GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS) [^"\n]{1,500}$/

/**
 * A status line (`HTTP/1.1 429 Too Many Requests`); `readBody`: the body after the headers, when
 * no body was found. An access log line in a record of several lines is the application's answer
 * to its own client, not the call's: its status is returned to be used only when the record
 * names no other (`调用 OpenAI API 时出错: Error code: 401 …` above `"POST /api/tasks HTTP/1.1" 500`).
 */
export function readStatusLine(s: string, d: Draft, readBody: boolean): { readonly status: number; readonly text: string } | null {
  const head = STATUS_LINE_RE.exec(s)
  const statusLine = head ?? INLINE_STATUS_LINE_RE.exec(s)
  if (statusLine === null) return null
  if (head === null && s.indexOf("\n") !== -1) {
    const lineStart = s.lastIndexOf("\n", statusLine.index) + 1
    if (ACCESS_REQUEST_RE.test(s.slice(lineStart, statusLine.index))) {
      return { status: Number(statusLine[1]), text: lineAround(s, statusLine.index + statusLine[0].length - 3) }
    }
  }
  d.from = "http-dump"
  setStatus(d, Number(statusLine[1]), lineAround(s, statusLine.index + statusLine[0].length - 3))
  if (readBody && head !== null) readDumpBody(s, statusLine.index, d)
  return null
}

/** The body of an HTTP dump (after the blank line that ends the headers), when it is not JSON. */
function readDumpBody(s: string, statusAt: number, d: Draft): void {
  const rest = s.slice(statusAt)
  const split = BODY_SPLIT_RE.exec(rest)
  if (split === null) return
  const bodyText = rest.slice(split.index + split[0].length)
  const f = firstNonSpace(bodyText)
  if (f === -1) return
  const c = bodyText.charCodeAt(f)
  if (c === 123 || c === 91) return
  if (c === 60 /* < */) {
    d.htmlSeen = true
    return
  }
  d.bodyNotJson = true
  const nl = bodyText.indexOf("\n", f)
  setMessage(d, bodyText.slice(f, nl === -1 ? bodyText.length : nl))
}
