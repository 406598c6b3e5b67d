/**
 * The user's own classification rules (`classify.rules` in the config, CONTRACT sections 4 and
 * 10): tried before the built-in catalogue. Every given field of a rule's `match` must match.
 * Set once at start-up (daemon, `classify --config`); the verdict cache follows `rulesVersion`.
 */
import type { ParsedFailure } from "../parse/ParsedFailure.js"
import type { Category, RateLimitKind } from "./Event.js"
import type { UserPattern } from "../config/userPattern.js"

export interface ClassifyRule {
  readonly name: string
  readonly match: {
    readonly status?: number
    readonly code?: number | string
    readonly errorType?: string
    readonly provider?: string
    /** Case-insensitive, linear-time (see config/userPattern.ts). */
    readonly message?: UserPattern
  }
  readonly category: Category
  readonly rateLimitKind?: RateLimitKind
}

let active: ReadonlyArray<ClassifyRule> = []
let version = 0

/** Replace the rules in force. */
export function setClassifyRules(rules: ReadonlyArray<ClassifyRule>): void {
  active = rules
  version++
}

/** The rules in force. */
export function classifyRules(): ReadonlyArray<ClassifyRule> {
  return active
}

/** Changes whenever the rules do. */
export function rulesVersion(): number {
  return version
}

const sameCode = (a: number | string, b: number | string | null): boolean =>
  b !== null && String(a).toLowerCase() === String(b).toLowerCase()

const sameWord = (a: string, b: string | null): boolean => b !== null && a.toLowerCase() === b.toLowerCase()

/** The first rule whose every given field matches the failure, or null. */
export function matchRule(f: ParsedFailure): ClassifyRule | null {
  for (const r of active) {
    const m = r.match
    if (m.status !== undefined && m.status !== f.status) continue
    if (m.code !== undefined && !sameCode(m.code, f.code)) continue
    if (m.errorType !== undefined && !sameWord(m.errorType, f.errorType) && !sameWord(m.errorType, f.errorClass)) continue
    if (m.provider !== undefined && !sameWord(m.provider, f.provider)) continue
    if (m.message !== undefined && (f.message === null || !m.message.test(f.message))) continue
    return r
  }
  return null
}
