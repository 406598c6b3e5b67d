/**
 * Secret redaction and chat-content removal (CONTRACT section 5: secrets never leave the parser).
 *
 * Every pattern here is linear: literal alternations, single character classes, bounded
 * whitespace runs, and quoted-string bodies whose alternatives cannot overlap. Each pattern runs
 * only behind a literal gate (one regex of plain words, or an `indexOf`) that finds its markers.
 */

export const REDACTED = "<redacted>"

/*
 * The model: a credential is the value that follows a credential-named key, in whatever syntax
 * the parser itself understands — JSON (plain, escaped, double-escaped, HTML- or \u-escaped),
 * Python literals and bytes, header lines, header tuples and `{"name", "value"}` pairs, logfmt,
 * env files, YAML, query strings raw and URL-encoded, command-line flags, XML — with `:` `=` `：`
 * `=>` as separators and whatever the authorization scheme (`Bearer`, `Basic`, `Key`, `ApiKey`,
 * `SSWS` …); plus the key shapes of the providers in the catalogue, found anywhere.
 *
 * A name is found by one linear regex; everything after it is read by hand (`valueAfter`), a
 * bounded number of characters, so no input can make the work grow faster than the text.
 */

/**
 * The last word of a credential name. Compound ones (`apikey`, `password`) may follow any
 * identifier (`openaiApiKey`, `DB_PASSWORD`); bare ones (`key`, `token`, `secret`, `sig`) only a
 * `_`/`-` segment or a camelCase hump (`x-auth-token`, `accessToken`), so that `monkey` and
 * `turkey` are not keys. Chinese names (密钥 key, 秘钥, 令牌 token, 密码 password) as they are.
 */
const NAME_RE =
  /api[-_ ]?key|apikey|(?:proxy-)?authorization|passw(?:or)?d|passphrase|pwd|pass|credentials?|signature|cookie|secret|token|key|sig|ssws|密钥|秘钥|令牌|密码/gi

const COMPOUND = new Set(["apikey", "authorization", "proxyauthorization", "password", "passwd", "passphrase", "credential", "credentials", "signature", "cookie"])
const SCHEME_NAMES = new Set(["authorization", "proxyauthorization"])
const SCHEMES = new Set(["bearer", "basic", "token", "digest", "key", "apikey", "api-key", "ssws", "hmac", "sharedkey", "negotiate", "aws4-hmac-sha256"])

/** One pass that finds whether any pattern can match (most records have nothing to redact). */
const GATE_RE = /key|authori|bearer|token|passw|pwd|secret|credential|signature|cookie|sig=|ssws|pass=|密钥|秘钥|令牌|密码/i
/** The literal starts of KEY_RE's shapes: KEY_RE runs only when one is present. */
const SHAPE_GATE_RE = /sk[-_]|xai-|pplx-|nvapi-|aiza|hf_|r8_|fw_|akia|asia|eyj|gh[ps]_|github_pat|xox[bp]-/i
const ANY_GATE_RE = new RegExp(`${GATE_RE.source}|${SHAPE_GATE_RE.source}`, "i")

/** `Bearer <token>` anywhere (also `Bearer\u0020x`, `Bearer%20x`). */
const BEARER_RE = /(?<![A-Za-z0-9_])(bearer)((?:[ \t]|\\{1,8}u0020|%20|\+){1,8})([A-Za-z0-9\-._~+/]+=*)/gi
const BEARER_PROSE = new Set(["token", "tokens", "auth", "authentication", "authorization", "scheme", "header", "and", "or", "is", "the"])

/**
 * Key shapes, found anywhere: `sk-…` (OpenAI, Anthropic `sk-ant-`, OpenRouter `sk-or-`, DeepSeek,
 * DashScope …), Groq `gsk_`, xAI, Perplexity, NVIDIA, Google `AIza`, Hugging Face `hf_`,
 * Replicate `r8_`, Fireworks `fw_`, AWS access key ids, GitHub and Slack tokens, and JWTs (Zhipu
 * signs its calls with them). Zhipu's `<32 hex>.<secret>` keys: ZHIPU_KEY_RE, run only where a
 * dot follows 32 hex digits (testing for that shape at every character cost a third of a
 * failure's parse).
 */
const KEY_RE =
  /(?<![A-Za-z0-9_-])(?:(?:sk|gsk|xai|pplx|nvapi|hf|r8|fw|ghp|ghs|github_pat|xoxb|xoxp)[-_][A-Za-z0-9_-]{13,}|AIza[0-9A-Za-z_-]{30,}|(?:AKIA|ASIA)[0-9A-Z]{16}|eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{4,})/g

const ZHIPU_KEY_RE = /(?<![A-Za-z0-9_-])[0-9a-f]{32}\.[A-Za-z0-9]{8,}/g

const isHexCode = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 97 && c <= 102)

/** A dot right after 32 lower-case hex digits (Zhipu's `<id>.<secret>`), looked for by hand. */
function hasZhipuShape(text: string): boolean {
  let i = text.indexOf(".", 32)
  for (let n = 0; i !== -1 && n < 512; n++) {
    let k = i - 1
    while (k >= 0 && i - k <= 32 && isHexCode(text.charCodeAt(k))) k--
    if (i - k > 32) return true
    i = text.indexOf(".", i + 1)
  }
  return false
}

/** `scheme://user:password@host`. */
const USERINFO_RE = /(\/\/[^\s/:@"']{1,128}:)([^\s/@"']{1,256})@/g

/** Replace secrets in `text` by `<redacted>`. Idempotent; returns `text` itself when nothing matched. */
export function redact(text: string): string {
  // one pass finds whether anything may need redacting; most failure records hold no secret
  if (!ANY_GATE_RE.test(text) && text.indexOf("@") === -1 && !hasZhipuShape(text)) return text
  const named = GATE_RE.test(text)
  const shaped = SHAPE_GATE_RE.test(text)
  const userinfo = text.indexOf("@") !== -1 && text.indexOf("://") !== -1
  if (!named && !shaped && !userinfo && !hasZhipuShape(text)) return text
  let out = named ? redactNamed(text) : text
  if (named && (out.indexOf("earer") !== -1 || out.indexOf("EARER") !== -1)) out = out.replace(BEARER_RE, replaceBearer)
  if (shaped) out = out.replace(KEY_RE, REDACTED)
  if (hasZhipuShape(out)) out = out.replace(ZHIPU_KEY_RE, REDACTED)
  if (userinfo) out = out.replace(USERINFO_RE, `$1${REDACTED}@`)
  return out
}

function replaceBearer(m: string, word: string, sp: string, value: string): string {
  return BEARER_PROSE.has(value.toLowerCase()) ? m : `${word}${sp}${REDACTED}`
}

const isAlnum = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122)
const isUpper = (c: number): boolean => c >= 65 && c <= 90
const isHex = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102)
const isIdent = (c: number): boolean => isAlnum(c) || c === 95 || c === 45

/** Does the name found at [start, end) stand as a credential key of its own (not `monkey`, not `tokens`)? */
function nameAt(text: string, start: number, end: number, word: string): boolean {
  if (word.charCodeAt(0) > 127) return true
  const after = text.charCodeAt(end)
  if (isAlnum(after) || after === 95 /* _ */) return false
  if (after === 45 /* - */ && isAlnum(text.charCodeAt(end + 1))) return false
  const before = text.charCodeAt(start - 1)
  if (start === 0 || !isAlnum(before)) return true
  // an escaped or URL-encoded delimiter before it: \u0022key, %22key, %3Fkey=, %26api_key=
  if (start >= 3 && text.charCodeAt(start - 3) === 37 /* % */ && isHex(text.charCodeAt(start - 2)) && isHex(before)) return true
  if (start >= 6 && text.charCodeAt(start - 6) === 92 && text.charCodeAt(start - 5) === 117 /* \u */) return true
  // a name glued to a word before it: compound names after anything, bare ones after a camel hump
  const w = word.toLowerCase().replace(/[-_ ]/g, "")
  if (COMPOUND.has(w)) return true
  return isUpper(text.charCodeAt(start)) && !isUpper(before)
}

/** Every credential-named key's value, redacted. */
function redactNamed(text: string): string {
  NAME_RE.lastIndex = 0
  let out = ""
  let last = 0
  let m: RegExpExecArray | null
  let budget = 4096
  while ((m = NAME_RE.exec(text)) !== null && budget-- > 0) {
    const start = m.index
    const end = start + m[0].length
    if (!nameAt(text, start, end, m[0])) continue
    const name = m[0].toLowerCase().replace(/[-_ ]/g, "")
    const v = valueAfter(text, start, end, name)
    if (v === null) continue
    out += text.slice(last, v.from) + REDACTED
    last = v.to
    NAME_RE.lastIndex = Math.max(v.to, end)
  }
  return last === 0 ? text : out + text.slice(last)
}

// ---- reading what follows a name, by hand and bounded ----------------------------------------

/** A quote in any escaping: `"`, `'`, `` ` ``, `\"`, `\\\"`, `%22`, `%27`, `&quot;`, `&#39;`, `\u0022`. Returns its length or 0. */
function quoteAt(text: string, i: number): number {
  let j = i
  while (j < text.length && j - i < 8 && text.charCodeAt(j) === 92 /* \ */) j++
  const c = text.charCodeAt(j)
  if (c === 34 || c === 39 || c === 96) return j + 1 - i
  if (j > i) {
    // \u0022, \u0027 (after any backslashes)
    if (text.startsWith("u0022", j) || text.startsWith("u0027", j)) return j + 5 - i
    return 0
  }
  if (c === 37 /* % */ && (text.startsWith("%22", i) || text.startsWith("%27", i))) return 3
  if (c === 38 /* & */) {
    if (text.startsWith("&quot;", i)) return 6
    if (text.startsWith("&#39;", i) || text.startsWith("&#34;", i)) return 5
  }
  return 0
}

/** Blanks in any escaping: space, tab, `\u0020`, `%20`, `\t`, `&nbsp;`. Returns the index after them. */
function skipBlanks(text: string, i: number): number {
  for (let n = 0; n < 16 && i < text.length; n++) {
    const c = text.charCodeAt(i)
    if (c === 32 || c === 9 || c === 0x3000) i++
    else if (c === 92) {
      // \u0020 or \t behind any number of escaping backslashes
      let j = i
      while (j < text.length && j - i < 8 && text.charCodeAt(j) === 92) j++
      if (text.startsWith("u0020", j)) i = j + 5
      else if (text.charCodeAt(j) === 116 /* t */) i = j + 1
      else break
    }
    else if (c === 37 && text.startsWith("%20", i)) i += 3
    else if (c === 38 && text.startsWith("&nbsp;", i)) i += 6
    else break
  }
  return i
}

/** A key/value separator: `:` `=` `：` `＝` `=>` `->` `%3A` `%3D` `\u003a` `\u003d`. Returns its length or 0. */
function separatorAt(text: string, i: number): number {
  const c = text.charCodeAt(i)
  if (c === 58 /* : */ || c === 0xff1a /* ： */ || c === 0xff1d /* ＝ */) return 1
  if (c === 61 /* = */) return text.charCodeAt(i + 1) === 62 ? 2 : 1
  if (c === 45 /* - */ && text.charCodeAt(i + 1) === 62) return 2
  if (c === 37 /* % */) {
    const a = text.charCodeAt(i + 1)
    const b = text.charCodeAt(i + 2) | 0x20
    if (a === 51 && (b === 97 || b === 100)) return 3
  }
  if (c === 92 /* \ */ && text.charCodeAt(i + 1) === 117 /* u */ && text.startsWith("003", i + 2)) {
    const b = text.charCodeAt(i + 5) | 0x20
    if (b === 97 || b === 100) return 6
  }
  return 0
}

/** Does a value stop here: blanks, quotes, brackets, `,;&|`, escapes, URL-encoded delimiters. */
function endsValue(text: string, i: number): boolean {
  const c = text.charCodeAt(i)
  if (c <= 32 || c === 0x3000 || c === 0xff0c /* ， */ || c === 0xff1b /* ； */) return true
  switch (c) {
    case 34: case 39: case 96: case 44: case 59: case 38: case 124: case 60: case 62:
    case 40: case 41: case 123: case 125: case 91: case 93: case 92:
      return true
    case 37: {
      // %22 %27 %2C %3B %26 %20 %0A
      const a = text.charCodeAt(i + 1)
      const b = text.charCodeAt(i + 2) | 0x20
      return (a === 50 && (b === 50 || b === 55 || b === 99 || b === 54 || b === 48)) || (a === 51 && b === 98) || (a === 48 && b === 97)
    }
  }
  return false
}

/** The value key of a `{name, value}` pair object. */
const VALUE_KEY_RE = /^(?:value|val|v)\b/i

const MAX_VALUE = 8192
const NOT_SECRET = new Set(["null", "none", "nil", "undefined", "true", "false", "redacted", "<redacted>"])

/**
 * Where the value of the credential name at [start, end) lies, or null when what follows is not
 * a value (prose, another key, an empty or placeholder value).
 */
function valueAfter(text: string, start: number, end: number, name: string): { from: number; to: number } | null {
  let i = end
  const closing = quoteAt(text, i)
  const quoted = closing > 0
  i += closing
  i = skipBlanks(text, i)
  let sep = separatorAt(text, i)
  let pair = false
  if (sep === 0 && quoted && text.charCodeAt(i) === 44 /* , */) {
    // a header tuple or pair: ('x-api-key', 'v'), ["authorization", "Bearer v"], {"name": "api-key", "value": "v"}
    sep = 1
    pair = true
  }
  // where the whole identifier starts (`x-api-key`, `--DB_PASSWORD`, `<access_token>`)
  let k = start
  while (k > 0 && start - k < 64 && (isAlnum(text.charCodeAt(k - 1)) || text.charCodeAt(k - 1) === 95 || (text.charCodeAt(k - 1) === 45 && isAlnum(text.charCodeAt(k - 2))))) k--
  if (sep === 0 && text.charCodeAt(i) === 62 /* > */ && text.charCodeAt(k - 1) === 60 /* < */) sep = 1 // <apiKey>v</apiKey>
  if (sep === 0) {
    // a command-line flag: --api-key v, -token v
    const flag = text.charCodeAt(k - 1) === 45 && i > end && !quoted
    if (!flag) return null
  }
  i += sep
  i = skipBlanks(text, i)
  if (pair) {
    // `"value": ` of a name/value pair object
    const q = quoteAt(text, i)
    const k = i + q
    const key = VALUE_KEY_RE.exec(text.slice(k, k + 6))
    if (key !== null) {
      let j = k + key[0].length
      j += quoteAt(text, j)
      j = skipBlanks(text, j)
      const s2 = separatorAt(text, j)
      if (s2 > 0) i = skipBlanks(text, j + s2)
    }
  }
  // opening quotes and brackets, Python bytes: b'…', ["…"]
  for (let n = 0; n < 4; n++) {
    const c = text.charCodeAt(i)
    if ((c === 98 || c === 66) && quoteAt(text, i + 1) > 0 && !isIdent(text.charCodeAt(i - 1))) i += 1
    const q = quoteAt(text, i)
    if (q > 0) {
      i = skipBlanks(text, i + q)
      continue
    }
    if (c === 91 /* [ */ || c === 40 /* ( */) {
      i = skipBlanks(text, i + 1)
      continue
    }
    break
  }
  let from = i
  let to = name === "cookie" ? scanCookie(text, from) : scanValue(text, from)
  if (to === from) return null
  // an authorization scheme (`Bearer x`, `Key x`, `SSWS x`): keep the scheme word, redact what follows
  const word = text.slice(from, to)
  const next = skipBlanks(text, to)
  if (next > to || text.charCodeAt(to) === 43 /* + */) {
    const after = next > to ? next : to + 1
    const isScheme = SCHEMES.has(word.toLowerCase()) || (SCHEME_NAMES.has(name) && /^[A-Za-z][A-Za-z0-9-]{1,24}$/.test(word))
    if (isScheme) {
      if (text.startsWith(REDACTED, after)) return null // already redacted: idempotent
      const to2 = scanValue(text, after)
      if (to2 > after) {
        // `Token token="x"`: the value is itself a key — let the scan find it
        if (quoteAt(text, to2) > 0 && /^[A-Za-z_][A-Za-z0-9_]{0,40}=$/.test(text.slice(after, to2))) return null
        from = after
        to = to2
      }
    }
  }
  if (pair && followedByKeySeparator(text, to)) return null // `"api_key", "code": …`: a list of names, not a pair
  const value = text.slice(from, to)
  const lower = value.toLowerCase()
  if (NOT_SECRET.has(lower) || lower.startsWith("<redacted")) return null
  if (/^[0-9]{1,11}$/.test(value)) return null // `max_token: 4096`
  if (!quoted && sep === 0 && value.startsWith("-")) return null // `--token --verbose`
  if (pair === false && sep > 0 && /^[:=]/.test(value)) return null
  return { from, to }
}

function scanValue(text: string, from: number): number {
  let to = from
  const max = Math.min(text.length, from + MAX_VALUE)
  while (to < max && !endsValue(text, to)) to++
  return to
}

/** A cookie header's value is every pair up to the end of the line or the string. */
function scanCookie(text: string, from: number): number {
  let to = from
  const max = Math.min(text.length, from + MAX_VALUE)
  for (; to < max; to++) {
    const c = text.charCodeAt(to)
    if (c === 10 || c === 13 || c === 34 || c === 39 || c === 92) break
  }
  return to
}

/** After a value and its closing quote, a `:` means it was a key (`"api_key", "code": 1`). */
function followedByKeySeparator(text: string, i: number): boolean {
  i += quoteAt(text, i)
  i = skipBlanks(text, i)
  const c = text.charCodeAt(i)
  return c === 58 || c === 0xff1a
}

// ---------------------------------------------------------------------------------------------
// Chat `messages`: keep only their count.

export interface StrippedMessages {
  readonly text: string
  /** Number of chat messages of the first `messages` array seen, or null when there was none. */
  readonly count: number | null
}

const MAX_MESSAGE_ARRAYS = 16

/**
 * Replace the contents of every `"messages": [...]` array (JSON, JSON escaped inside a JSON
 * string, Python dict literals, JS object dumps, `messages=[...]`) by a placeholder string
 * `"<redacted: N messages>"` quoted like the key, so that the surrounding JSON stays parseable.
 */
export function stripMessages(text: string): StrippedMessages {
  let from = text.indexOf("messages")
  if (from === -1) return { text, count: null }
  let out = ""
  let last = 0
  let count: number | null = null
  let seen = 0
  while (from !== -1 && seen < MAX_MESSAGE_ARRAYS) {
    const hit = matchMessagesKey(text, from)
    if (hit === null) {
      from = text.indexOf("messages", from + 8)
      continue
    }
    seen++
    const scan = scanArray(text, hit.open, hit.escaped)
    if (count === null) count = scan.count
    const q = hit.quote
    out += text.slice(last, hit.open) + `[${q}<redacted: ${scan.count}${scan.closed ? "" : "+"} messages>${q}]`
    last = scan.closed ? scan.end : text.length
    from = last >= text.length ? -1 : text.indexOf("messages", last)
  }
  if (seen === 0) return { text, count: null }
  return { text: out + text.slice(last), count }
}

/** Drop the contents of `messages` from a request body object; returns a copy and the count. */
export function dropMessages(body: unknown): { readonly body: unknown; readonly count: number | null } {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return { body, count: null }
  const rec = body as Record<string, unknown>
  const messages = rec["messages"]
  if (!Array.isArray(messages)) return { body, count: null }
  return { body: { ...rec, messages: `<redacted: ${messages.length} messages>` }, count: messages.length }
}

interface KeyHit {
  /** Index of the `[` opening the array. */
  readonly open: number
  /** The quote the key used (`"`, `'`, `\"` or empty), reused for the placeholder. */
  readonly quote: string
  readonly escaped: boolean
}

function matchMessagesKey(text: string, at: number): KeyHit | null {
  // The character before the key: a quote, an escaped quote, or a non-word character.
  let quote = ""
  const before = text.charCodeAt(at - 1)
  if (before === 34 /* " */ || before === 39 /* ' */) {
    quote = text[at - 1]
    if (before === 34 && text.charCodeAt(at - 2) === 92 /* \ */) quote = "\\\""
  } else if (at > 0 && isWordChar(before)) {
    return null
  }
  let i = at + 8
  if (quote !== "") {
    if (!text.startsWith(quote, i)) return null
    i += quote.length
  } else if (isWordChar(text.charCodeAt(i))) {
    return null
  }
  i = skipSpaces(text, i, 8)
  const sep = text.charCodeAt(i)
  if (sep !== 58 /* : */ && sep !== 61 /* = */) return null
  i = skipSpaces(text, i + 1, 8)
  if (text.charCodeAt(i) !== 91 /* [ */) return null
  return { open: i, quote: quote === "" ? "'" : quote, escaped: quote === "\\\"" }
}

function isWordChar(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95
}

function skipSpaces(text: string, i: number, max: number): number {
  const end = Math.min(text.length, i + max)
  while (i < end) {
    const c = text.charCodeAt(i)
    if (c !== 32 && c !== 9) break
    i++
  }
  return i
}

/**
 * Scan the array opening at `open`: returns the index after its closing bracket and the number
 * of top-level elements. `escaped`: the array sits inside a JSON string (`\"` quotes), so one
 * level of backslash escapes is decoded first. Linear; strings may use `"` or `'`.
 */
function scanArray(text: string, open: number, escaped: boolean): { end: number; count: number; closed: boolean } {
  let depth = 0
  let quote = 0
  let elements = 0
  let sawValue = false
  const n = text.length
  let i = open
  while (i < n) {
    let c = text.charCodeAt(i)
    let width = 1
    if (escaped && c === 92 /* \ */ && i + 1 < n) {
      // One level of JSON-string escaping: `\"` is a quote, `\\` is a backslash, `\n` whitespace.
      const d = text.charCodeAt(i + 1)
      c = d === 110 || d === 116 || d === 114 ? 32 : d
      width = 2
    }
    i += width
    if (quote !== 0) {
      if (c === 92 /* \ */) {
        // Inner escape: skip the next (logical) character.
        if (escaped && text.charCodeAt(i) === 92) i += 2
        else i += 1
      } else if (c === quote) {
        quote = 0
      }
      continue
    }
    if (c === 34 || c === 39) {
      quote = c
      if (depth === 1) sawValue = true
    } else if (c === 91 || c === 123) {
      depth++
      if (depth === 2) sawValue = true
    } else if (c === 93 || c === 125) {
      depth--
      if (depth === 0) return { end: i, count: sawValue ? elements + 1 : elements, closed: true }
    } else if (depth === 1) {
      if (c === 44) {
        if (sawValue) elements++
        sawValue = false
      } else if (c !== 32 && c !== 9 && c !== 10 && c !== 13) {
        sawValue = true
      }
    }
  }
  return { end: n, count: sawValue ? elements + 1 : elements, closed: false }
}

// ---------------------------------------------------------------------------------------------
// Structured values (webhook objects): redact by walking, not by rewriting serialized JSON.

/** Is an object key (a whole identifier) a credential name: `OPENAI_API_KEY`, `x-api-key`, `accessToken`, `password`? */
export function isSecretName(key: string): boolean {
  if (key.length === 0 || key.length > 128) return false
  NAME_RE.lastIndex = 0
  let m: RegExpExecArray | null
  let found = false
  while ((m = NAME_RE.exec(key)) !== null) {
    const end = m.index + m[0].length
    // the name must end the key and stand as a name of its own
    if (end === key.length && nameAt(key, m.index, end, m[0])) found = true
  }
  return found
}

/** Objects nested deeper than this are replaced by a placeholder (no stack overflow, no loss of the rest). */
export const MAX_VALUE_DEPTH = 64

/**
 * A copy of a JSON value with secrets redacted: secret-named keys (any value type) become
 * `<redacted>`, every string goes through `redact` and `stripMessages`, chat `messages`
 * arrays keep only their count, and anything nested deeper than MAX_VALUE_DEPTH is cut.
 */
export function redactValue(value: unknown): { readonly value: unknown; readonly messagesCount: number | null } {
  let count: number | null = null
  const walk = (v: unknown, depth: number): unknown => {
    if (typeof v === "string") {
      const s = stripMessages(redact(v))
      if (count === null && s.count !== null) count = s.count
      return s.text
    }
    if (v === null || typeof v !== "object") return v
    if (depth >= MAX_VALUE_DEPTH) return "<too deep>"
    if (Array.isArray(v)) {
      // a header pair: ["x-api-key", "v"]
      if (v.length === 2 && typeof v[0] === "string" && isSecretName(v[0]) && v[1] !== null) return [v[0], REDACTED]
      return v.map((x) => walk(x, depth + 1))
    }
    // no prototype: a `__proto__` key of the sender's JSON stays a key, not this object's prototype
    const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>
    // a header object: {"name": "x-api-key", "value": "v"}
    const rec = v as Record<string, unknown>
    const pairName = rec["name"] ?? rec["key"] ?? rec["header"]
    const secretPair = typeof pairName === "string" && isSecretName(pairName)
    for (const [k, x] of Object.entries(rec)) {
      if (secretPair && (k === "value" || k === "values" || k === "val") && x !== null) {
        out[k] = REDACTED
        continue
      }
      if (isSecretName(k)) out[k] = x === null ? null : REDACTED
      else if (k === "messages" && Array.isArray(x)) {
        if (count === null) count = x.length
        out[k] = [`<redacted: ${x.length} messages>`]
      } else out[k] = walk(x, depth + 1)
    }
    return out
  }
  const redacted = walk(value, 0)
  return { value: redacted, messagesCount: count }
}
