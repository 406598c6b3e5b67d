/**
 * Regular expressions that come from users (`classify.rules[].match.message`, silence matchers).
 * Two guards, one mechanism:
 * - when the config loads, a pattern that a backtracking engine could take exponential time on
 *   (a nested quantifier `(a+)+`, a repeated alternation `(a|ab)*`, a back-reference) or that
 *   looks around is refused with the reason;
 * - what is accepted runs on RE2 (re2js, a linear-time engine), so no input, however hostile,
 *   makes a match take more than time proportional to its length.
 */
import regjsparser, { type AstNode } from "regjsparser"
import { RE2JS } from "re2js"

export interface UserPattern {
  readonly source: string
  test(text: string): boolean
}

export const USER_PATTERN_MAX_CHARS = 500

export interface UserPatternOptions {
  /** Match case-sensitively (Alertmanager matchers); default: case-insensitive. */
  readonly caseSensitive?: boolean
  /** The pattern must match the whole text (Alertmanager's anchored matchers); default: anywhere. */
  readonly whole?: boolean
}

/** Compile a user's pattern, or say in one sentence why not. */
export function compileUserPattern(source: string, opts: UserPatternOptions = {}): UserPattern | string {
  if (source.length === 0) return "is empty"
  if (source.length > USER_PATTERN_MAX_CHARS) return `is longer than ${USER_PATTERN_MAX_CHARS} characters`
  let ast: Node
  try {
    ast = regjsparser.parse(source, opts.caseSensitive === true ? "u" : "iu", { namedGroups: true, lookbehind: true, unicodePropertyEscape: true })
  } catch (e) {
    return `is not a valid regular expression: ${(e as Error).message.split("\n")[0]}`
  }
  const unsafe = unsafeConstruct(ast)
  if (unsafe !== null) return `${unsafe}; write it without one (for example "[^\\n]{0,80}" for a gap)`
  let re: RE2JS
  try {
    re = RE2JS.compile(source, opts.caseSensitive === true ? 0 : RE2JS.CASE_INSENSITIVE)
  } catch (e) {
    return `is not supported by the linear-time engine: ${(e as Error).message.split("\n")[0]}`
  }
  return opts.whole === true ? { source, test: (text) => re.matches(text) } : { source, test: (text) => re.test(text) }
}

const cache = new Map<string, UserPattern | string>()
const CACHE_MAX = 1024

/** `compileUserPattern`, remembered (silences are matched against every alert, again and again). */
export function cachedUserPattern(source: string, opts: UserPatternOptions = {}): UserPattern | string {
  const key = `${opts.caseSensitive === true ? "s" : "i"}${opts.whole === true ? "w" : "a"}${source}`
  let p = cache.get(key)
  if (p === undefined) {
    if (cache.size >= CACHE_MAX) cache.clear()
    p = compileUserPattern(source, opts)
    cache.set(key, p)
  }
  return p
}

type Node = AstNode<{ namedGroups: true; lookbehind: true; unicodePropertyEscape: true }>

/** The first construct that can backtrack catastrophically or is not linear, described; else null. */
function unsafeConstruct(root: Node): string | null {
  const walk = (n: Node, underRepeat: boolean): string | null => {
    switch (n.type) {
      case "reference":
        return `has a back-reference (${n.raw}), which cannot be matched in linear time`
      case "group":
        if (n.behavior !== "ignore" && n.behavior !== "normal") return `has a look-around (${n.raw.slice(0, 40)}), which cannot be matched in linear time`
        return walkAll(n.body as Node[], underRepeat)
      case "quantifier": {
        const repeats = n.max === undefined || n.max > 1
        if (repeats && underRepeat) return `could backtrack catastrophically: a repeated group holds another repetition (${n.raw.slice(0, 40)})`
        const inner = n.body[0] as Node
        if (repeats && containsDisjunction(inner)) return `could backtrack catastrophically: a repeated group holds an alternation (${n.raw.slice(0, 40)})`
        return walk(inner, underRepeat || repeats)
      }
      case "alternative":
        return walkAll(n.body as Node[], underRepeat)
      case "disjunction":
        return walkAll(n.body as Node[], underRepeat)
      default:
        return null
    }
  }
  const walkAll = (ns: ReadonlyArray<Node>, underRepeat: boolean): string | null => {
    for (const c of ns) {
      const r = walk(c, underRepeat)
      if (r !== null) return r
    }
    return null
  }
  return walk(root, false)
}

function containsDisjunction(n: Node): boolean {
  switch (n.type) {
    case "disjunction":
      return true
    case "group":
    case "alternative":
      return (n.body as Node[]).some(containsDisjunction)
    case "quantifier":
      return containsDisjunction(n.body[0] as Node)
    default:
      return false
  }
}
