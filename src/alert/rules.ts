/**
 * Alert rules (CONTRACT section 7): the built-in rules, merged with the config's `rules` by
 * name, and the group an event belongs to under a rule. Pure.
 */
import { severityOf } from "../classify/classify.js"
import { Either } from "effect"
import type { Category, FailureEvent, RateLimitKind, Severity } from "../classify/Event.js"
import { ConfigError, type GroupLabel, type RuleSpec } from "../config/Config.js"
import { parseDuration } from "../config/duration.js"

/** One [long, short, factor] pair of an `slo` rule. */
export interface BurnWindow {
  readonly long: string
  readonly short: string
  readonly longMs: number
  readonly shortMs: number
  readonly factor: number
}

/**
 * How a rule decides that a group is bad: a count of failures (`threshold`), a failure ratio
 * (`ratio` with `minCalls`), or the multi-window, multi-burn-rate alert of an SLO (Google SRE
 * workbook, chapter 5): the error budget (1 - objective) burning at `factor` times or faster in
 * both the long and the short window of a pair.
 */
export type RuleMode =
  | { readonly _tag: "count" }
  | { readonly _tag: "ratio"; readonly ratio: number; readonly minCalls: number }
  | { readonly _tag: "slo"; readonly objective: number; readonly minCalls: number; readonly windows: ReadonlyArray<BurnWindow> }

/** Calls a ratio or slo rule's group needs in the window before it may fire. */
export const DEFAULT_MIN_CALLS = 10

export interface Rule {
  readonly name: string
  /** null: failures of every category (a ratio or slo rule that names none). */
  readonly category: Category | null
  /** Only events of these kinds count; null: any kind. */
  readonly rateLimitKinds: ReadonlyArray<RateLimitKind> | null
  /** Sorted, so the group key does not depend on how the config lists them. */
  readonly groupBy: ReadonlyArray<GroupLabel>
  /** The window (an slo rule: its longest). */
  readonly window: string
  readonly windowMs: number
  /** A count rule's threshold; a ratio rule's ratio; an slo rule's error budget (1 - objective). */
  readonly threshold: number
  readonly mode: RuleMode
  readonly repeatIntervalMs: number
  readonly resolveAfterMs: number
  readonly severity: Severity
  /** null: the config's `defaultReceivers`. */
  readonly receivers: ReadonlyArray<string> | null
}

/** The `category` of an alert of a rule that counts every category. */
export const ANY_CATEGORY = "any"

export const DEFAULT_REPEAT_INTERVAL = "4h"
export const DEFAULT_RESOLVE_AFTER = "10m"

const daily: ReadonlyArray<RateLimitKind> = ["RPD", "TPD", "IPD"]

/** The built-in rules, exactly as CONTRACT section 7 names them. */
export const builtinRules: ReadonlyArray<RuleSpec> = [
  { name: "api-key-invalid", category: "auth_key", threshold: 1, window: "5m", severity: "critical" },
  { name: "quota-exhausted", category: "quota", threshold: 1, window: "5m" },
  { name: "realname-auth-required", category: "auth_realname", threshold: 1, window: "5m", groupBy: ["model"] },
  { name: "permission-denied", category: "permission", threshold: 1, window: "5m" },
  { name: "model-not-found", category: "model_not_found", threshold: 1, window: "5m", groupBy: ["model"] },
  { name: "rate-limited", category: "rate_limit", threshold: 20, window: "1m", groupBy: ["rateLimitKind", "model"] },
  { name: "daily-limit-reached", category: "rate_limit", rateLimitKinds: daily, threshold: 1, window: "5m", severity: "critical" },
  { name: "overloaded", category: "overload", threshold: 10, window: "5m", groupBy: ["model"] },
  { name: "server-errors", category: "server_error", threshold: 1, window: "5m", severity: "critical" }
]

/** A rule's severity when the config names none: the severity its events have (CONTRACT section 4);
 * a rate-limit rule is critical only when every kind it counts is a daily one. */
export const defaultSeverity = (category: Category, kinds: ReadonlyArray<RateLimitKind> | null): Severity =>
  category === "rate_limit"
    ? kinds !== null && kinds.length > 0 && kinds.every((k) => severityOf(category, k) === "critical") ? "critical" : "warning"
    : severityOf(category, null)

const merge = (base: RuleSpec | undefined, over: RuleSpec): RuleSpec => {
  if (base === undefined) return over
  const out: Record<string, unknown> = { ...base }
  // a built-in turned into a ratio or slo rule (or back) leaves its other form behind
  if (over.ratio !== undefined || over.slo !== undefined) delete out["threshold"]
  if (over.threshold !== undefined) {
    delete out["ratio"]
    delete out["slo"]
  }
  for (const [k, v] of Object.entries(over)) if (v !== undefined) out[k] = v
  return out as RuleSpec
}

const invalid = (where: string, message: string) => Either.left(new ConfigError({ message: `invalid configuration: ${where}: ${message}` }))

/**
 * The rules in force: built-ins overridden field by field by config entries of the same name,
 * removed by `disabled: true`, plus new names. A new rule must name its `category`.
 */
export const resolveRules = (specs: ReadonlyArray<RuleSpec>): Either.Either<ReadonlyArray<Rule>, ConfigError> => {
  const byName = new Map<string, RuleSpec>(builtinRules.map((r) => [r.name, r]))
  for (const spec of specs) byName.set(spec.name, merge(byName.get(spec.name), spec))
  const rules: Array<Rule> = []
  for (const spec of byName.values()) {
    if (spec.disabled === true) continue
    const where = `rules: "${spec.name}"`
    const forms = [spec.threshold, spec.ratio, spec.slo].filter((f) => f !== undefined).length
    if (forms > 1) return invalid(where, "give one of threshold, ratio and slo")
    if (spec.category === undefined && spec.ratio === undefined && spec.slo === undefined) {
      return invalid(where, "a new rule needs a category (only a ratio or slo rule may count every category)")
    }
    if (spec.minCalls !== undefined && spec.ratio === undefined && spec.slo === undefined) return invalid(where, "minCalls goes with ratio or slo")
    const minCalls = spec.minCalls ?? DEFAULT_MIN_CALLS
    let mode: RuleMode = { _tag: "count" }
    let burn: ReadonlyArray<BurnWindow> = []
    if (spec.ratio !== undefined) mode = { _tag: "ratio", ratio: spec.ratio, minCalls }
    if (spec.slo !== undefined) {
      burn = spec.slo.windows.map(([long, short, factor]) => ({ long, short, longMs: parseDuration(long) ?? 0, shortMs: parseDuration(short) ?? 0, factor }))
      if (burn.some((w) => w.longMs <= 0 || w.shortMs <= 0 || w.shortMs > w.longMs)) {
        return invalid(`${where}: slo.windows`, "each [long, short, factor] needs positive durations, the short one no longer than the long one")
      }
      if (spec.window !== undefined) return invalid(where, "an slo rule takes its windows from slo.windows, not window")
      mode = { _tag: "slo", objective: spec.slo.objective, minCalls, windows: burn }
    }
    const longest = burn.reduce<BurnWindow | null>((a, w) => (a === null || w.longMs > a.longMs ? w : a), null)
    const window = longest?.long ?? spec.window ?? "5m"
    const windowMs = parseDuration(window)
    const repeatIntervalMs = parseDuration(spec.repeatInterval ?? DEFAULT_REPEAT_INTERVAL)
    const resolveAfterMs = parseDuration(spec.resolveAfter ?? DEFAULT_RESOLVE_AFTER)
    if (windowMs === null || windowMs <= 0 || repeatIntervalMs === null || repeatIntervalMs <= 0 || resolveAfterMs === null) {
      return Either.left(new ConfigError({ message: `invalid configuration: ${where}: window and repeatInterval must be positive durations` }))
    }
    const kinds = spec.rateLimitKinds === undefined || spec.rateLimitKinds.length === 0 ? null : [...spec.rateLimitKinds]
    rules.push({
      name: spec.name,
      category: spec.category ?? null,
      rateLimitKinds: kinds,
      groupBy: [...new Set(spec.groupBy ?? [])].sort(),
      window,
      windowMs,
      threshold: mode._tag === "ratio" ? mode.ratio : mode._tag === "slo" ? 1 - mode.objective : (spec.threshold ?? 1),
      mode,
      repeatIntervalMs,
      resolveAfterMs,
      severity: spec.severity ?? (spec.category === undefined ? "warning" : defaultSeverity(spec.category, kinds)),
      receivers: spec.receivers === undefined ? null : [...spec.receivers]
    })
  }
  return Either.right(rules)
}

export const ruleMatches = (rule: Rule, e: FailureEvent): boolean =>
  (rule.category === null || e.category === rule.category) && (rule.rateLimitKinds === null || (e.rateLimitKind !== null && rule.rateLimitKinds.includes(e.rateLimitKind)))

export type GroupLabels = Readonly<Partial<Record<GroupLabel, string | null>>>

const labelValue = (e: FailureEvent, label: GroupLabel): string | null => {
  const v = e[label]
  return v === null || v === undefined ? null : String(v)
}

/** The values of the rule's `groupBy` labels for an event (null where the event has none). */
export const groupLabelsOf = (rule: Rule, e: FailureEvent): GroupLabels =>
  Object.fromEntries(rule.groupBy.map((l) => [l, labelValue(e, l)]))

/** `rule{label="value",...}`: stable for equal labels, whatever their order. */
export const groupKeyOf = (ruleName: string, labels: GroupLabels): string => {
  const parts = Object.keys(labels)
    .sort()
    .map((k) => `${k}=${JSON.stringify(labels[k as GroupLabel] ?? null)}`)
  return `${ruleName}{${parts.join(",")}}`
}

/**
 * `groupKeyOf(rule.name, groupLabelsOf(rule, e))` without building the labels (`groupBy` is
 * sorted and without duplicates): the engine keys every event of every batch by it.
 */
export const eventGroupKeyOf = (rule: Rule, e: FailureEvent): string => {
  let key = `${rule.name}{`
  for (let i = 0; i < rule.groupBy.length; i++) {
    const l = rule.groupBy[i]!
    key += `${i === 0 ? "" : ","}${l}=${JSON.stringify(labelValue(e, l))}`
  }
  return `${key}}`
}

/** What silences match and Alertmanager receives: the rule's identity plus the group labels. */
export const alertLabelsOf = (rule: Rule, group: GroupLabels): Readonly<Record<string, string | null>> => ({
  alertname: rule.name,
  category: rule.category ?? ANY_CATEGORY,
  severity: rule.severity,
  ...group
})
