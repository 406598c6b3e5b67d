/**
 * Tolerant parsing of bodies embedded in log text: strict JSON, Python dict literals (single
 * quotes, True/False/None, trailing commas), Ruby hashes (`=>`, `nil`), JS object dumps
 * (`{ status: 403, code: undefined }`), full-width punctuation (`：` `，` `｛`), raw newlines inside strings (hard-wrapped logs), and
 * bodies cut off mid-way (what was read so far is returned). Never throws; linear in the input.
 */

/** Keys whose value is an identifier (a code, a type): kept only whole. */
const IDENTIFIER_KEY_RE = /(?:^|_)(?:code|type)$|Code$|Type$/

export interface LooseResult {
  readonly value: unknown
  /** Index just after the parsed value. */
  readonly end: number
  /** False when the input ended or broke before the value was closed. */
  readonly complete: boolean
}

const MAX_DEPTH = 48

/** Parse one value starting at `start` (leading whitespace skipped). `undefined` when nothing parseable starts there. */
export function parseLoose(text: string, start = 0): LooseResult | undefined {
  try {
    const p = new Parser(text, start)
    p.ws()
    if (p.i >= text.length) return undefined
    const value = p.value(0)
    if (value === NOTHING) return undefined
    return { value, end: p.i, complete: !p.broken }
  } catch {
    return undefined
  }
}

/** Parse a whole text: `JSON.parse` first, then the tolerant parser. `undefined` when unreadable. */
export function parseLooseText(text: string): unknown {
  const first = firstNonSpace(text)
  if (first === -1) return undefined
  const c = text.charCodeAt(first)
  if (c === 123 || c === 91) {
    try {
      return JSON.parse(text) as unknown
    } catch {
      // fall through to the tolerant parser
    }
  }
  return parseLoose(text, first)?.value
}

/** True when the first non-blank character of `text` opens an object. */
export function looksLikeObject(text: string): boolean {
  const i = firstNonSpace(text)
  return i !== -1 && (text.charCodeAt(i) === 123 || text.charCodeAt(i) === 0xff5b)
}

export function firstNonSpace(text: string, from = 0): number {
  const n = text.length
  for (let i = from; i < n; i++) {
    const c = text.charCodeAt(i)
    if (c !== 32 && c !== 9 && c !== 10 && c !== 13 && c !== 0xfeff && c !== 0x3000 && c !== 0xa0) return i
  }
  return -1
}

const NOTHING: unique symbol = Symbol("nothing")
/** A redaction placeholder standing for a value: `<NUM>`, `<REDACTED>`, `<hidden>`. */
const PLACEHOLDER_RE = /<[A-Za-z][\w-]{0,23}>/y
const NUMBER_RE = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y

class Parser {
  i: number
  broken = false
  constructor(readonly s: string, start: number) {
    this.i = start
  }

  ws(): void {
    const s = this.s
    const n = s.length
    let i = this.i
    while (i < n) {
      const c = s.charCodeAt(i)
      if (c === 32 || c === 9 || c === 10 || c === 13 || c === 0x3000 || c === 0xa0 || c === 0xfeff) i++
      else break
    }
    this.i = i
  }

  value(depth: number): unknown {
    const s = this.s
    if (this.i >= s.length) {
      this.broken = true
      return NOTHING
    }
    const c = s.charCodeAt(this.i)
    if (depth > MAX_DEPTH) {
      this.broken = true
      return NOTHING
    }
    if (c === 123 || c === 0xff5b) return this.object(depth)
    if (c === 91) return this.array(depth)
    if (c === 34 || c === 39 || c === 0x201c || c === 0x2018) return this.string()
    if (c === 45 || (c >= 48 && c <= 57)) return this.number()
    if (isIdentStart(c)) return this.identifier()
    if (c === 60) {
      // a value a log pipeline redacted: `"code": <NUM>`, `"key": <REDACTED>`
      PLACEHOLDER_RE.lastIndex = this.i
      const p = PLACEHOLDER_RE.exec(s)
      if (p !== null) {
        this.i += p[0].length
        return null
      }
    }
    this.broken = true
    return NOTHING
  }

  object(depth: number): Record<string, unknown> {
    const s = this.s
    const out: Record<string, unknown> = {}
    this.i++
    for (;;) {
      this.ws()
      if (this.i >= s.length) {
        this.broken = true
        return out
      }
      let c = s.charCodeAt(this.i)
      if (c === 125 || c === 0xff5d) {
        this.i++
        return out
      }
      if (c === 44 || c === 0xff0c) {
        this.i++
        continue
      }
      let key: string
      if (c === 34 || c === 39 || c === 0x201c || c === 0x2018) key = this.string()
      else if (isIdentStart(c) || (c >= 48 && c <= 57) || c === 45) key = this.identifierText()
      else if (c === 58 && isIdentStart(s.charCodeAt(this.i + 1))) {
        // a Ruby symbol key (`{:error=>{:message=>"…"}}`, ruby-openai's Faraday errors)
        this.i++
        key = this.identifierText()
      } else {
        this.broken = true
        return out
      }
      const keyEnd = this.i
      this.ws()
      c = s.charCodeAt(this.i)
      // `:`, a full-width `：`, Ruby's hash rocket (`{"error"=>{"code"=>nil}}`, ruby-openai's logs),
      // or ` = ` between spaces: a Lua table (`{ code = "rate_limit_exceeded", param = vim.NIL }`,
      // Neovim plugins' vim.inspect) or an NSDictionary's description (Swift, `code = "<null>";`).
      // A bare `=` is not (OkHttp's `Response{protocol=h2, code=400, …}` is no error body).
      if (c === 61 && s.charCodeAt(this.i + 1) === 62) this.i++
      else if (c !== 58 && c !== 0xff1a && !(c === 61 && this.i > keyEnd && s.charCodeAt(this.i + 1) === 32)) {
        this.broken = true
        return out
      }
      this.i++
      this.ws()
      const v = this.value(depth + 1)
      if (v === NOTHING) return out
      // a string the text cut off is kept (a message's beginning says something), except where it
      // would be an identifier: `'code': 'Al` (a quoted excerpt that ends there) is no code
      if (this.broken && typeof v === "string" && IDENTIFIER_KEY_RE.test(key)) return out
      // NSNull as Foundation describes it
      if (key !== "__proto__") out[key] = v === "<null>" ? null : v
      if (this.broken) return out
      this.ws()
      if (this.i >= s.length) {
        this.broken = true
        return out
      }
      c = s.charCodeAt(this.i)
      // `,` (or an NSDictionary's `;`)
      if (c === 44 || c === 0xff0c || c === 59) this.i++
      else if (c === 125 || c === 0xff5d) {
        this.i++
        return out
      } else if (c === 41 || c === 0xff09) {
        // `{... )`: a mangled closing bracket; end here.
        this.broken = true
        this.i++
        return out
      }
      // A missing comma is tolerated: the next key is read directly.
    }
  }

  array(depth: number): unknown[] {
    const s = this.s
    const out: unknown[] = []
    this.i++
    for (;;) {
      this.ws()
      if (this.i >= s.length) {
        this.broken = true
        return out
      }
      const c = s.charCodeAt(this.i)
      if (c === 93) {
        this.i++
        return out
      }
      if (c === 44 || c === 0xff0c) {
        this.i++
        continue
      }
      const v = this.value(depth + 1)
      if (v === NOTHING) return out
      out.push(v)
      if (this.broken) return out
    }
  }

  string(): string {
    const s = this.s
    const open = s.charCodeAt(this.i)
    const close = open === 0x201c ? 0x201d : open === 0x2018 ? 0x2019 : open
    const n = s.length
    let i = this.i + 1
    let out = ""
    let from = i
    while (i < n) {
      const c = s.charCodeAt(i)
      if (c === close) {
        out += s.slice(from, i)
        this.i = i + 1
        return out
      }
      if (c === 92 /* \ */) {
        out += s.slice(from, i)
        if (i + 1 >= n) {
          i++
          from = i
          break
        }
        const e = s.charCodeAt(i + 1)
        i += 2
        switch (e) {
          case 110: out += "\n"; break
          case 116: out += "\t"; break
          case 114: out += "\r"; break
          case 98: out += "\b"; break
          case 102: out += "\f"; break
          case 117: {
            const hex = s.slice(i, i + 4)
            if (/^[0-9a-fA-F]{4}$/.test(hex)) {
              out += String.fromCharCode(parseInt(hex, 16))
              i += 4
            } else out += "u"
            break
          }
          case 120: {
            const hex = s.slice(i, i + 2)
            if (/^[0-9a-fA-F]{2}$/.test(hex)) {
              out += String.fromCharCode(parseInt(hex, 16))
              i += 2
            } else out += "x"
            break
          }
          case 10: break // line continuation
          default: out += String.fromCharCode(e)
        }
        from = i
        continue
      }
      i++
    }
    // Unterminated string: keep what was read.
    out += s.slice(from, n)
    this.i = n
    this.broken = true
    return out
  }

  number(): number | string {
    const s = this.s
    NUMBER_RE.lastIndex = this.i
    const r = NUMBER_RE.exec(s)
    if (r === null) {
      // A lone `-`: read as an identifier-like word.
      return this.identifierText()
    }
    const after = s.charCodeAt(this.i + r[0].length)
    if (isIdentPart(after)) return this.identifierText()
    this.i += r[0].length
    return Number(r[0])
  }

  identifierText(): string {
    const s = this.s
    const n = s.length
    const start = this.i
    let i = start
    while (i < n && isIdentPart(s.charCodeAt(i))) i++
    if (i === start) i++
    this.i = i
    return s.slice(start, i)
  }

  identifier(): unknown {
    const word = this.identifierText()
    switch (word) {
      case "true":
      case "True":
        return true
      case "false":
      case "False":
        return false
      case "null":
      case "None":
      case "nil":
      case "undefined":
      case "NaN":
      case "vim.NIL":
        return null
      default:
        return word
    }
  }
}

function isIdentStart(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 36
}

function isIdentPart(c: number): boolean {
  return isIdentStart(c) || (c >= 48 && c <= 57) || c === 45 || c === 46
}

// ---------------------------------------------------------------------------------------------
// Field scanner for bodies whose structure is broken.

export interface ScannedFields {
  code: number | string | null
  message: string | null
  type: string | null
  status: number | null
}

const SCAN_KEYS = ["message", "code", "type", "status", "msg", "detail", "error_msg"] as const

/**
 * Best-effort extraction of `code`, `message`, `type` and `status` from a body whose structure
 * is broken (`{["message"："x", ...)`): finds each quoted key (`"k"`, `'k'`, `\"k\"`, `“k”`)
 * followed by `:` (or `：`) and reads
 * the value after it. Linear: one `indexOf` walk per key, bounded by `maxScan` hits.
 */
export function scanFields(text: string, from = 0, maxScan = 64): ScannedFields {
  const out: ScannedFields = { code: null, message: null, type: null, status: null }
  for (const key of SCAN_KEYS) {
    let at = text.indexOf(key, from)
    let hits = 0
    while (at !== -1 && hits < maxScan) {
      hits++
      const v = valueAfterKey(text, at, key.length)
      if (v !== NOTHING) {
        assignScanned(out, key, v)
        break
      }
      at = text.indexOf(key, at + key.length)
    }
  }
  return out
}

function assignScanned(out: ScannedFields, key: (typeof SCAN_KEYS)[number], v: unknown): void {
  switch (key) {
    case "message":
    case "msg":
    case "detail":
    case "error_msg":
      if (out.message === null && typeof v === "string" && v.trim() !== "") out.message = v
      return
    case "code":
      if (out.code === null && (typeof v === "number" || (typeof v === "string" && v !== ""))) out.code = v
      return
    case "type":
      if (out.type === null && typeof v === "string" && v !== "") out.type = v
      return
    case "status":
      if (out.status === null && typeof v === "number") out.status = v
      return
  }
}

function valueAfterKey(text: string, at: number, len: number): unknown {
  // The key must be quoted (`"k"`, `'k'`, `\"k\"`) or a bare word followed by a colon.
  const before = text.charCodeAt(at - 1)
  const afterKey = at + len
  let i = afterKey
  if (before === 34 || before === 39 || before === 0x201c) {
    const close = before === 0x201c ? 0x201d : before
    if (text.charCodeAt(i) === 92) i++
    if (text.charCodeAt(i) !== close) return NOTHING
    i++
  } else {
    // Bare words (`Error code: 429`) are prose, not fields.
    return NOTHING
  }
  while (i < text.length && i < afterKey + 8 && (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 9)) i++
  const sep = text.charCodeAt(i)
  if (sep !== 58 && sep !== 0xff1a && sep !== 61) return NOTHING
  i++
  while (i < text.length && i < afterKey + 24 && (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 9)) i++
  // An escaped string value inside a JSON string: `\"...\"`.
  if (text.charCodeAt(i) === 92 && text.charCodeAt(i + 1) === 34) {
    const end = text.indexOf("\\\"", i + 2)
    const stop = end === -1 ? Math.min(text.length, i + 2 + 4096) : end
    return text.slice(i + 2, stop).replace(/\\\\/g, "\\")
  }
  const p = new Parser(text, i)
  const c = text.charCodeAt(i)
  if (c === 123 || c === 91 || c === 0xff5b) return NOTHING
  const v = p.value(0)
  return v
}
