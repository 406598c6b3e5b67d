/**
 * What a terminal or a log collector adds around a record, taken off before the extractors read
 * it: colour escapes (`\x1b[31mERROR\x1b[0m`, and the same escaped inside a JSON string:
 * `\u001b[36m`) and the service prefix `docker compose logs` puts before every line
 * (`api-1  | `). Both hide what the extractors look for at a line's start (a status, a body, a
 * traceback's last line) and split a pretty-printed body. The stored sample keeps the text as it
 * was; only the parse reads the unwrapped one.
 */

/** CSI sequences (colours, cursor moves) and OSC sequences (titles, hyperlinks) of a terminal. */
const ANSI_RE = /\x1b\[[0-9;?]{0,32}[ -/]{0,4}[@-~]|\x1b\][^\x07\x1b]{0,512}(?:\x07|\x1b\\)/g
/** The same escapes written out inside a JSON string or a repr (`\u001b[36m`, `\x1b[0m`, `\033[1;31m`). */
const ESCAPED_ANSI_RE = /\\(?:u001[bB]|x1[bB]|033|e)\[[0-9;]{0,32}[A-Za-z]/g

/**
 * `docker compose logs`' prefix: the service (or container) name, padded with spaces, then `| `.
 * A name ending in a replica number (`api-1`, `proj_api_1`) or followed by padding is one; a
 * table's first column (`URL | /v1/…`) has neither.
 */
const COMPOSE_PREFIX_RE = /^([A-Za-z0-9][\w.-]{0,62})( +)\|(?: |$)/

export function unwrapRecord(text: string): string {
  let s = text
  if (s.indexOf("\x1b") !== -1) s = s.replace(ANSI_RE, "")
  const bs = s.indexOf("\\")
  if (bs !== -1) {
    ESCAPED_ANSI_RE.lastIndex = bs
    if (ESCAPED_ANSI_RE.test(s)) s = s.replace(ESCAPED_ANSI_RE, "")
  }
  return stripComposePrefix(s)
}

function stripComposePrefix(s: string): string {
  const c = s.charCodeAt(0)
  // a cheap first look: the prefix's bar within the first 80 characters, after a word character
  if (!((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122))) return s
  const bar = s.indexOf("|")
  if (bar === -1 || bar > 80) return s
  const m = COMPOSE_PREFIX_RE.exec(s.slice(0, bar + 2))
  if (m === null) return s
  if (m[2]!.length < 2 && !/[-_]\d{1,3}$/.test(m[1]!)) return s
  const prefix = m[1]! + m[2]! + "|"
  if (s.indexOf("\n") === -1) return s.slice(prefix.length).replace(/^ /, "")
  const lines = s.split("\n")
  // every line of the record carries it (a wrapped line's tail may not: it is kept as it is)
  let withPrefix = 0
  for (const l of lines) if (l.startsWith(prefix)) withPrefix++
  if (withPrefix < lines.length / 2) return s
  return lines.map((l) => (l.startsWith(prefix) ? l.slice(l.charCodeAt(prefix.length) === 32 ? prefix.length + 1 : prefix.length) : l)).join("\n")
}
