/**
 * Globs of `tail[].path`, resolved against the working directory. chokidar 5 has no glob
 * support, so a glob becomes a static base directory to watch plus a matcher for the paths
 * found under it. (`path.matchesGlob` exists in Node 20.19 but prints an ExperimentalWarning;
 * the subset used for log paths is small enough to translate here.)
 *
 * Supported: `*` (within a segment), `**` (any number of segments), `?`, `{a,b}`, `[abc]`, `[!abc]`.
 */
import * as path from "node:path"

export interface CompiledGlob {
  /** The absolute glob. */
  readonly pattern: string
  /** The longest leading directory without glob characters: what is watched. */
  readonly base: string
  /** How many directory levels below `base` can hold a match (`undefined`: any, `**`). */
  readonly depth: number | undefined
  readonly matches: (absolutePath: string) => boolean
}

const isGlobSegment = (s: string): boolean => /[*?[{]/.test(s)

const escapeRegExp = (c: string): string => (/[.+^$()|\\\/\]]/.test(c) ? `\\${c}` : c)

/** Translate an absolute, `/`-separated glob to an anchored RegExp source. */
export const globToRegExpSource = (glob: string): string => {
  let out = ""
  let braceDepth = 0
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!
    if (c === "*") {
      if (glob[i + 1] === "*") {
        const atSegmentStart = i === 0 || glob[i - 1] === "/"
        const next = glob[i + 2]
        if (atSegmentStart && next === "/") {
          out += "(?:[^/]*/)*"
          i += 2
          continue
        }
        if (atSegmentStart && next === undefined) {
          out += ".*"
          i += 1
          continue
        }
        // `a**b` behaves like `a*b`
        i += 1
      }
      out += "[^/]*"
    } else if (c === "?") {
      out += "[^/]"
    } else if (c === "{") {
      braceDepth++
      out += "(?:"
    } else if (c === "}" && braceDepth > 0) {
      braceDepth--
      out += ")"
    } else if (c === "," && braceDepth > 0) {
      out += "|"
    } else if (c === "[") {
      const close = glob.indexOf("]", i + 2)
      if (close === -1) {
        out += "\\["
      } else {
        let body = glob.slice(i + 1, close)
        if (body.startsWith("!")) body = `^${body.slice(1)}`
        out += `[${body.replace(/\\/g, "\\\\")}]`
        i = close
      }
    } else {
      out += escapeRegExp(c)
    }
  }
  return `^${out}$`
}

export const compileGlob = (pattern: string, cwd: string): CompiledGlob => {
  const absolute = path.resolve(cwd, pattern).split(path.sep).join("/")
  const segments = absolute.split("/")
  const firstGlob = segments.findIndex(isGlobSegment)
  if (firstGlob === -1) {
    // A plain file path: watch its folder, match it exactly.
    return { pattern: absolute, base: path.dirname(absolute), depth: 0, matches: (p) => p === absolute }
  }
  const base = segments.slice(0, firstGlob).join("/") || "/"
  const rest = segments.slice(firstGlob)
  const depth = rest.some((s) => s.includes("**")) ? undefined : rest.length - 1
  const re = new RegExp(globToRegExpSource(absolute))
  return { pattern: absolute, base, depth, matches: (p) => re.test(p) }
}
