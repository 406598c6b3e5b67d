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
  s = stripComposePrefix(s)
  s = stripLinePrefixes(s)
  return s.indexOf("\n") === -1 ? s : joinHardWraps(s)
}

/**
 * A terminal's (or a TUI's, or a mail's) hard wrap at a fixed width: most long lines exactly as
 * long as each other (the width), each going on at the next line's start, mid-word or mid-number
 * (`…"code": 4` / `29, …`). Those lines are joined back. A stack trace's or a log's long lines
 * vary in length, so they are left as they are.
 */
function joinHardWraps(s: string): string {
  const lines = s.split("\n")
  if (lines.length < 3 || lines.length > 400) return s
  const counts = new Map<number, number>()
  let long = 0
  for (let i = 0; i < lines.length - 1; i++) {
    const n = lines[i]!.length
    if (n < 60) continue
    long++
    counts.set(n, (counts.get(n) ?? 0) + 1)
  }
  let width = 0
  let most = 0
  for (const [n, c] of counts) if (c > most) [width, most] = [n, c]
  if (most < 2 || most < long * 0.6) return s
  let out = lines[0]!
  for (let i = 1; i < lines.length; i++) {
    const prev = lines[i - 1]!
    const next = lines[i]!
    out += prev.length === width && next !== "" && !CONTINUES_OWN_LINE_RE.test(next) ? next : "\n" + next
  }
  return out
}

/**
 * A line that starts on its own (an indented frame, a new log line), not the wrapped end of the
 * one before. An indented line is never joined: a wrap that fell before a space looks the same as
 * an indented continuation, and joining the latter does more harm than leaving the former.
 */
const CONTINUES_OWN_LINE_RE = /^(?:[ \t]|at |File "|Caused by|Traceback|\d{4}-\d\d-\d\d[T ]|\[\d)/

/**
 * Prefixes a collector or a paste puts before every line, and what of each the parse keeps: the
 * CRI log format of Kubernetes nodes (`<time> stderr F `: the time), a syslog header (`Nov 25
 * 10:00:00 web-1 app[123]: `: the time), `kubectl logs --prefix` (`[pod/api-7c9f/api] `), a
 * quoted paste (`> `), Python logging's default `ERROR:root:`. A record's lines all carry it
 * (the first always); the first line keeps the time, so the event keeps its own.
 */
const LINE_PREFIXES: ReadonlyArray<readonly [first: number, re: RegExp, keepTime: boolean]> = [
  [50, /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?(?:Z|[+-]\d\d:?\d\d)) (?:stdout|stderr) [FP] /, true],
  // 65: any capital letter (a month's name)
  [65, /^([A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d) [\w.-]{1,64} [\w.\/-]{1,64}(?:\[\d{1,10}\])?: /, true],
  [91, /^\[pod\/[^\/\]\s]{1,128}\/[^\]\s]{1,64}\] /, false],
  [62, /^> ?/, false],
  [69, /^(?:ERROR|WARNING|CRITICAL):[\w.]{1,80}:(?=\S)/, false]
]

const CURL_REQUEST_LINE_RE = /^(?:[A-Z]{3,7} \S|[\w-]{1,40}: )/

function stripLinePrefixes(s: string): string {
  const c = s.charCodeAt(0)
  for (const [first, re, keepTime] of LINE_PREFIXES) {
    // one character compared before any regex: nearly every record starts with none of them
    if (c !== first && !(first === 50 && c >= 48 && c <= 57) && !(first === 65 && c >= 65 && c <= 90)) continue
    // the CRI format's time is RFC 3339 (`2026-11-25T…`); a log's own `2026-11-25 10:00:00` is no CRI line
    if (first === 50 && s.charCodeAt(10) !== 84) continue
    const m = re.exec(s)
    if (m === null) continue
    const nl = s.indexOf("\n")
    if (nl === -1) {
      // a quote mark before curl -v's request line or header is the dump's, not a paste's
      if (first === 62 && CURL_REQUEST_LINE_RE.test(s.slice(m[0].length, m[0].length + 48))) return s
      return (keepTime ? m[1] + " " : "") + s.slice(m[0].length)
    }
    const lines = s.split("\n")
    let carrying = 0
    for (const l of lines) if (re.test(l)) carrying++
    // a curl -v dump mixes `> `, `< ` and `* ` lines: not a quoted paste
    if (carrying < (first === 62 ? lines.length : lines.length / 2)) return s
    return lines
      .map((l, i) => {
        const p = re.exec(l)
        if (p === null) return l
        return (i === 0 && keepTime ? p[1] + " " : "") + l.slice(p[0].length)
      })
      .join("\n")
  }
  return s
}

function stripComposePrefix(s: string): string {
  const c = s.charCodeAt(0)
  // a cheap first look: the prefix's bar within the first 80 characters, after a word character
  if (!((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122))) return s
  let bar = -1
  for (let i = 1, end = Math.min(s.length, 81); i < end; i++) {
    if (s.charCodeAt(i) === 124) {
      bar = i
      break
    }
  }
  if (bar === -1) return s
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
