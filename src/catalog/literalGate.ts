/**
 * Which of many patterns can match a text, found in one pass over it: each pattern's longest
 * literal that every match must contain (`\bBedrockException\b` -> `BedrockException`), keyed by
 * its first four characters in a table; a pattern is run only where its key occurs in the text.
 *
 * Why: the catalogue's ~240 provider markers used to be one alternation, which V8 tries
 * alternative by alternative at every position of the text (~60 ns a character: a quarter of
 * parsing a multi-line record). The table's pass costs a few ns a character, and the markers it
 * lets through are a handful. A pattern without such a literal (3+ characters outside groups,
 * classes and optional parts) is always run.
 */

/** `s` as a pattern that matches exactly it. */
export const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** The shortest literal worth a table entry. */
const MIN_LITERAL = 4

/** The literal runs every match of `source` must contain, one per top-level alternative; null when an alternative has none of 4+ characters. */
export function requiredLiterals(source: string): string[] | null {
  const branches = splitTopLevel(source)
  const out: string[] = []
  for (const b of branches) {
    const lit = longestRequiredRun(b)
    if (lit === null || lit.length < MIN_LITERAL) return null
    out.push(lit)
  }
  return out
}

/** `source` split at its top-level `|` (not inside groups or classes). */
function splitTopLevel(source: string): string[] {
  const parts: string[] = []
  let depth = 0
  let start = 0
  for (let i = 0; i < source.length; i++) {
    const c = source[i]
    if (c === "\\") i++
    else if (c === "[") i = classEnd(source, i)
    else if (c === "(") depth++
    else if (c === ")") depth--
    else if (c === "|" && depth === 0) {
      parts.push(source.slice(start, i))
      start = i + 1
    }
  }
  parts.push(source.slice(start))
  return parts
}

/** The index of the `]` closing the class opened at `i`. */
function classEnd(s: string, i: number): number {
  let j = i + 1
  if (s[j] === "^") j++
  if (s[j] === "]") j++
  for (; j < s.length; j++) {
    if (s[j] === "\\") j++
    else if (s[j] === "]") return j
  }
  return s.length
}

/** The index of the `)` closing the group opened at `i`. */
function groupEnd(s: string, i: number): number {
  let depth = 0
  for (let j = i; j < s.length; j++) {
    const c = s[j]
    if (c === "\\") j++
    else if (c === "[") j = classEnd(s, j)
    else if (c === "(") depth++
    else if (c === ")" && --depth === 0) return j
  }
  return s.length
}

const ESCAPED_LITERAL = /^[\\/.\-()[\]{}|?*+^$:'"@#%&!,;<=>_~` ]$/
const ZERO_WIDTH_ESCAPES = new Set(["b", "B"])

/** The longest run of literal characters in a branch with no top-level `|`, each required. */
function longestRequiredRun(b: string): string | null {
  let best = ""
  let run = ""
  const end = (): void => {
    if (run.length > best.length) best = run
    run = ""
  }
  for (let i = 0; i < b.length; i++) {
    const c = b[i]!
    let lit: string | null = null
    if (c === "\\") {
      const e = b[i + 1] ?? ""
      i++
      if (ZERO_WIDTH_ESCAPES.has(e)) continue
      if (ESCAPED_LITERAL.test(e)) lit = e
      else {
        // a class escape, a code point, a back reference: not a literal we know
        if (e === "u") i += b[i + 1] === "{" ? b.indexOf("}", i) - i : 4
        else if (e === "x") i += 2
        else if (e === "c") i += 1
        else if (e === "k") i = Math.max(i, b.indexOf(">", i))
        else if (e === "p" || e === "P") i = Math.max(i, b.indexOf("}", i))
        end()
        continue
      }
    } else if (c === "[") {
      i = classEnd(b, i)
      end()
    } else if (c === "(") {
      i = groupEnd(b, i)
      end()
    } else if (c === "." || c === "^" || c === "$") {
      end()
      continue
    } else if (c === "?" || c === "*" || c === "+" || c === "{" || c === "}" || c === "]" || c === ")") {
      // a quantifier after a group or class (already ended), or a stray bracket: no literal
      if (c === "{") i = Math.max(i, b.indexOf("}", i))
      end()
      continue
    } else lit = c
    if (lit === null) {
      // a group or class: a quantifier after it needs nothing more
      continue
    }
    // a quantifier after this character: `?`, `*`, `{0,…}` make it optional, others repeat it
    const q = b[i + 1]
    if (q === "?" || q === "*" || (q === "{" && b[i + 2] === "0")) {
      end()
      continue
    }
    if (q === "+" || q === "{") {
      run += lit
      end()
      continue
    }
    run += lit
  }
  end()
  return best === "" ? null : best
}

/**
 * Four characters folded to 5 bits each (`c & 31`: an ASCII letter's two cases fold together),
 * then hashed to 16 bits: few ordinary words share a marker's first four letters.
 */
const TABLE_BITS = 16
const gramIndex = (g: number): number => Math.imul(g, 0x9e3779b1) >>> (32 - TABLE_BITS)
const gramAt = (s: string, i: number): number =>
  ((s.charCodeAt(i) & 31) << 15) | ((s.charCodeAt(i + 1) & 31) << 10) | ((s.charCodeAt(i + 2) & 31) << 5) | (s.charCodeAt(i + 3) & 31)

interface Keyed {
  /** The gate's bit. */
  readonly bit: number
  readonly pattern: number
  readonly literal: string
  /** The pattern is case-insensitive: the literal is lower case and compared so. */
  readonly insensitive: boolean
}

/**
 * The grams of every gate in one table (a bit per gate), and the last text's hits: a record's
 * text is asked about by several gates (API hosts, markers, weak markers, other APIs' hosts), and
 * is read once for all of them.
 */
const union = new Uint32Array(1 << TABLE_BITS)
/** gram -> the literals of every gate that start with it */
const byGram = new Map<number, Keyed[]>()
let gates = 0
let scannedText: string | null = null
let hitAt = new Int32Array(256)
/** The gates' bits at each hit, and the literals keyed there (looked up once, for every gate). */
let hitBits = new Int32Array(256)
const hitLists: Keyed[][] = []
let hits = 0
/** The bits of the gates with at least one gram in the last text: a gate without is answered at once. */
let hitGates = 0
/** The Latin-1 copy the scan reads (one byte per UTF-16 unit, the low byte: all the fold keeps). */
let scratch = Buffer.allocUnsafe(4096)

/**
 * Where in `t` a gram of some gate starts. The characters are read from a Latin-1 copy: a loop
 * over a Buffer is several times faster than `charCodeAt` over the assembled texts, which are
 * concatenations.
 */
function scan(t: string): void {
  if (t === scannedText) return
  hits = 0
  let gatesSeen = 0
  const n = t.length
  if (n >= MIN_LITERAL) {
    if (scratch.length < n) scratch = Buffer.allocUnsafe(Math.max(n, scratch.length * 2))
    const b = scratch
    b.write(t, 0, n, "latin1")
    const table = union
    let g = ((b[0]! & 31) << 10) | ((b[1]! & 31) << 5) | (b[2]! & 31)
    for (let i = 0; i + 3 < n; i++) {
      g = ((g << 5) | (b[i + 3]! & 31)) & 0xfffff
      const h = gramIndex(g)
      const bits = table[h]!
      if (bits === 0) continue
      gatesSeen |= bits
      if (hits === hitAt.length) {
        const at = new Int32Array(hits * 2)
        at.set(hitAt)
        hitAt = at
        const hb = new Int32Array(hits * 2)
        hb.set(hitBits)
        hitBits = hb
      }
      hitAt[hits] = i
      hitBits[hits] = bits
      hitLists[hits] = byGram.get(h)!
      hits++
    }
  }
  hitGates = gatesSeen
  scannedText = t
}

export class LiteralGate {
  private readonly bit: number
  /** Patterns without a literal: always candidates. */
  private readonly always: number[] = []
  private readonly seen: Uint8Array
  private lastText: string | null = null
  private lastOut: ReadonlyArray<number> = []

  constructor(readonly patterns: ReadonlyArray<RegExp>) {
    if (gates === 32) throw new Error("LiteralGate: at most 32 gates")
    this.bit = 1 << gates++
    scannedText = null
    this.seen = new Uint8Array(patterns.length)
    patterns.forEach((re, k) => {
      const lits = requiredLiterals(re.source)
      if (lits === null) {
        this.always.push(k)
        return
      }
      const insensitive = re.flags.includes("i")
      for (const lit of lits) {
        const g = gramIndex(gramAt(lit, 0))
        union[g] = union[g]! | this.bit
        const keyed = { bit: this.bit, pattern: k, literal: insensitive ? lit.toLowerCase() : lit, insensitive }
        const list = byGram.get(g)
        if (list === undefined) byGram.set(g, [keyed])
        else list.push(keyed)
      }
    })
  }

  /**
   * The patterns that may match `t` (their literal is in it), in ascending order; each is still to
   * be run. A record's text is asked about more than once while it is parsed: the last answer is
   * kept.
   */
  candidates(t: string): ReadonlyArray<number> {
    if (t === this.lastText) return this.lastOut
    scan(t)
    if ((hitGates & this.bit) === 0) {
      // none of this gate's literals is in the text
      this.lastText = t
      this.lastOut = this.always
      return this.always
    }
    const out = this.always.slice()
    const seen = this.seen
    const bit = this.bit
    for (let k = 0; k < hits; k++) {
      if ((hitBits[k]! & bit) === 0) continue
      const i = hitAt[k]!
      for (const e of hitLists[k]!) {
        if (e.bit === bit && seen[e.pattern] === 0 && literalAt(t, i, e)) {
          seen[e.pattern] = 1
          out.push(e.pattern)
        }
      }
    }
    for (const k of out) seen[k] = 0
    if (out.length > 1) out.sort((a, b) => a - b)
    this.lastText = t
    this.lastOut = out
    return out
  }

  /**
   * The first match of the patterns in `t`: the leftmost, and at one place the first pattern in
   * order, unless `ahead(k, held)` puts pattern `k` before the one held. What one alternation of
   * the patterns, tried left to right, would find.
   */
  leftmost(t: string, ahead?: (k: number, held: number) => boolean): { readonly match: RegExpExecArray; readonly pattern: number } | null {
    let match: RegExpExecArray | null = null
    let pattern = -1
    for (const k of this.candidates(t)) {
      const m = this.patterns[k]!.exec(t)
      if (m !== null && (match === null || m.index < match.index || (m.index === match.index && ahead?.(k, pattern) === true))) {
        match = m
        pattern = k
      }
    }
    return match === null ? null : { match, pattern }
  }

  /** Whether any of the patterns matches `t`. */
  test(t: string): boolean {
    return this.candidates(t).some((k) => this.patterns[k]!.test(t))
  }
}

/** The literal is at `i` (in any case, for a case-insensitive pattern). */
function literalAt(t: string, i: number, e: Keyed): boolean {
  if (!e.insensitive) return t.startsWith(e.literal, i)
  const lit = e.literal
  if (i + lit.length > t.length) return false
  for (let j = 0; j < lit.length; j++) {
    const a = t.charCodeAt(i + j)
    const b = lit.charCodeAt(j)
    if (a === b) continue
    // an ASCII capital against the literal's lower case; anything else: the slow, exact answer
    if (a >= 65 && a <= 90 && a + 32 === b) continue
    if (a < 128 && b < 128) return false
    return t.slice(i, i + lit.length).toLowerCase() === lit
  }
  return true
}

/**
 * One pattern's top-level alternatives behind a literal gate: `test` answers exactly what the
 * pattern's own `test` does (an alternation matches where one of its alternatives does), running
 * only the alternatives whose literal is in the text. For the wording vocabulary: a dozen
 * alternations of 20-60 phrases each, which V8 tried phrase by phrase at every position of every
 * message (~2 µs a pattern on a 140-character message, several times a record).
 */
export class GatedAlternation {
  private readonly gate: LiteralGate
  constructor(readonly pattern: RegExp) {
    const flags = pattern.flags.replace(/[gy]/g, "")
    this.gate = new LiteralGate(splitTopLevel(pattern.source).map((alt) => new RegExp(alt, flags)))
  }

  test(t: string): boolean {
    return this.gate.test(t)
  }
}
