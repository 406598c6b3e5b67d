/**
 * The configuration of CONTRACT section 10: a JSON file (`--config`, `FAULTLINE_CONFIG`),
 * environment overrides, embedded defaults. Decoded once with Schema; a bad file is a
 * `ConfigError` naming the field and what is wrong.
 */
import { Data, Either, ParseResult, Redacted, Schema } from "effect"
import * as fs from "node:fs"
import { parseDuration } from "./duration.js"
import { categories, rateLimitKinds, severities } from "../classify/Event.js"
import type { ClassifyRule } from "../classify/rules.js"
import { compileUserPattern } from "./userPattern.js"

export class ConfigError extends Data.TaggedError("ConfigError")<{ readonly message: string }> {}

const Duration = Schema.String.pipe(
  Schema.filter((s) => parseDuration(s) !== null || `expected a duration like "30s", "5m", "4h", got "${s}"`)
)
const Secret = Schema.NullOr(Schema.Redacted(Schema.NonEmptyString))
const Port = Schema.Int.pipe(Schema.between(0, 65535))

const Http = Schema.Struct({
  host: Schema.optionalWith(Schema.NonEmptyString, { default: () => "127.0.0.1" }),
  port: Schema.optionalWith(Port, { default: () => 8787 }),
  apiToken: Schema.optionalWith(Secret, { default: () => null }),
  ingestToken: Schema.optionalWith(Secret, { default: () => null }),
  ingestHmacSecret: Schema.optionalWith(Secret, { default: () => null }),
  maxBodyBytes: Schema.optionalWith(Schema.Int.pipe(Schema.positive()), { default: () => 1_048_576 }),
  /** Base URL used in links of alerts and tickets; defaults to http://host:port. */
  publicUrl: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null })
})

/** Decimal (kB, MB, GB, TB: powers of 1000) and binary (KiB, MiB, GiB, TiB: powers of 1024) units, any case. */
const SIZE_UNITS: Readonly<Record<string, number>> = {
  "": 1, b: 1,
  kb: 1e3, mb: 1e6, gb: 1e9, tb: 1e12,
  kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3, tib: 1024 ** 4
}
/** The smallest `database.maxSize` (a smaller one is surely a typo: the empty schema is ~300 KB). */
export const MIN_DATABASE_SIZE = 64 * 1024

/** `500MB`, `2GB`, `512KiB`, `1048576`, or a number of bytes; the bytes, or why not. */
export const parseSize = (v: number | string): number | string => {
  let bytes: number
  if (typeof v === "number") bytes = v
  else {
    const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(v)
    const unit = m === null ? undefined : SIZE_UNITS[m[2]!.toLowerCase()]
    if (m === null || unit === undefined) return `expected bytes or a size like "500MB", "2GB", "512KiB", got ${JSON.stringify(v)}`
    bytes = Math.floor(Number(m[1]) * unit)
  }
  if (!Number.isSafeInteger(bytes) || bytes <= 0) return `expected a whole positive number of bytes, got ${JSON.stringify(v)}`
  if (bytes < MIN_DATABASE_SIZE) return `expected at least 64KiB, got ${JSON.stringify(v)}`
  return bytes
}

/** A size in bytes, written as a number or as a string with a unit; decodes to bytes. */
const Size = Schema.transformOrFail(Schema.Union(Schema.Number, Schema.String), Schema.Number, {
  strict: true,
  decode: (v, _, ast) => {
    const bytes = parseSize(v)
    return typeof bytes === "number" ? ParseResult.succeed(bytes) : ParseResult.fail(new ParseResult.Type(ast, v, bytes))
  },
  encode: (n) => ParseResult.succeed(n)
})

const Database = Schema.Struct({
  path: Schema.optionalWith(Schema.NonEmptyString, { default: () => "./data/faultline.db" }),
  retentionDays: Schema.optionalWith(Schema.Number.pipe(Schema.positive()), { default: () => 30 }),
  /** Bytes the database may use (CONTRACT section 10); past it the oldest events are pruned. None by default. */
  maxSize: Schema.optionalWith(Schema.NullOr(Size), { default: () => null })
})

export const TailSpec = Schema.Struct({
  path: Schema.NonEmptyString,
  service: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null }),
  startAt: Schema.optionalWith(Schema.Literal("end", "beginning"), { default: () => "end" as const })
})
export type TailSpec = typeof TailSpec.Type

export const ReceiverType = Schema.Literal("webhook", "slack", "alertmanager", "pagerduty")
export const Receiver = Schema.Struct({
  name: Schema.NonEmptyString,
  type: ReceiverType,
  url: Schema.NonEmptyString.pipe(Schema.pattern(/^https?:\/\//, { message: () => "expected an http(s) URL" })),
  /** webhook: HMAC secret for X-Faultline-Signature. */
  secret: Schema.optionalWith(Secret, { default: () => null }),
  /** pagerduty: the Events API v2 integration key. */
  routingKey: Schema.optionalWith(Secret, { default: () => null }),
  /** Per-attempt timeout. */
  timeout: Schema.optionalWith(Duration, { default: () => "10s" })
})
export type Receiver = typeof Receiver.Type

export const GroupLabel = Schema.Literal("service", "model", "provider", "rateLimitKind", "status", "code")
export type GroupLabel = typeof GroupLabel.Type

/** The labels `tickets.groupBy` may name. */
export const TicketGroupLabel = Schema.Literal("model", "service", "provider")
export type TicketGroupLabel = typeof TicketGroupLabel.Type

/** A rule as written in the config: overrides a built-in rule by name, or defines a new one. */
export const RuleSpec = Schema.Struct({
  name: Schema.NonEmptyString,
  disabled: Schema.optional(Schema.Boolean),
  category: Schema.optional(Schema.Literal(...categories)),
  rateLimitKinds: Schema.optional(Schema.Array(Schema.Literal(...rateLimitKinds))),
  groupBy: Schema.optional(Schema.Array(GroupLabel)),
  window: Schema.optional(Duration),
  threshold: Schema.optional(Schema.Int.pipe(Schema.positive())),
  /** Fire when failures / calls of the group in the window reach this (instead of `threshold`). */
  ratio: Schema.optional(Schema.Number.pipe(Schema.greaterThan(0), Schema.lessThanOrEqualTo(1))),
  /** Calls a group needs in the window before `ratio` (or `slo`) may fire (default 10). */
  minCalls: Schema.optional(Schema.Int.pipe(Schema.positive())),
  /** The multi-window, multi-burn-rate alert: [long, short, factor] pairs of windows. */
  slo: Schema.optional(
    Schema.Struct({
      objective: Schema.Number.pipe(Schema.greaterThan(0), Schema.lessThan(1)),
      windows: Schema.NonEmptyArray(Schema.Tuple(Duration, Duration, Schema.Number.pipe(Schema.positive())))
    })
  ),
  repeatInterval: Schema.optional(Duration),
  resolveAfter: Schema.optional(Duration),
  severity: Schema.optional(Schema.Literal(...severities)),
  receivers: Schema.optional(Schema.Array(Schema.String))
})
export type RuleSpec = typeof RuleSpec.Type

/** A user's classification rule (CONTRACT section 4): every given field of `match` must match. */
export const ClassifyRuleSpec = Schema.Struct({
  name: Schema.NonEmptyString,
  match: Schema.Struct({
    status: Schema.optional(Schema.Int.pipe(Schema.between(100, 599))),
    code: Schema.optional(Schema.Union(Schema.Int, Schema.NonEmptyString)),
    errorType: Schema.optional(Schema.NonEmptyString),
    provider: Schema.optional(Schema.NonEmptyString),
    message: Schema.optional(
      Schema.String.pipe(
        Schema.filter((p) => {
          const compiled = compileUserPattern(p)
          return typeof compiled === "string" ? `the pattern ${JSON.stringify(p.length > 60 ? p.slice(0, 60) + "…" : p)} ${compiled}` : true
        })
      )
    )
  }).pipe(
    Schema.filter((m) =>
      Object.values(m).some((v) => v !== undefined) || "expected at least one of status, code, errorType, provider, message"
    )
  ),
  category: Schema.Literal(...categories),
  rateLimitKind: Schema.optional(Schema.Literal(...rateLimitKinds))
})
export type ClassifyRuleSpec = typeof ClassifyRuleSpec.Type

export const ConfigSchema = Schema.Struct({
  http: Schema.optionalWith(Http, { default: () => Schema.decodeSync(Http)({}) }),
  database: Schema.optionalWith(Database, { default: () => Schema.decodeSync(Database)({}) }),
  tail: Schema.optionalWith(Schema.Array(TailSpec), {
    default: () => [{ path: "./logs/**/*.log", service: null, startAt: "end" as const }]
  }),
  receivers: Schema.optionalWith(Schema.Array(Receiver), { default: () => [] }),
  defaultReceivers: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }),
  rules: Schema.optionalWith(Schema.Array(RuleSpec), { default: () => [] }),
  tickets: Schema.optionalWith(
    Schema.Struct({
      receivers: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }),
      /** Labels that split a server-error signature into several tickets (CONTRACT section 7); none by default. */
      groupBy: Schema.optionalWith(Schema.Array(TicketGroupLabel), { default: () => [] })
    }),
    { default: () => ({ receivers: [], groupBy: [] }) }
  ),
  delivery: Schema.optionalWith(
    Schema.Struct({
      /** How long a notification is retried before it becomes a dead letter. */
      maxAge: Schema.optionalWith(Duration, { default: () => "24h" }),
      initialBackoff: Schema.optionalWith(Duration, { default: () => "1s" }),
      maxBackoff: Schema.optionalWith(Duration, { default: () => "5m" })
    }),
    { default: () => ({ maxAge: "24h", initialBackoff: "1s", maxBackoff: "5m" }) }
  ),
  classify: Schema.optionalWith(
    Schema.Struct({ rules: Schema.optionalWith(Schema.Array(ClassifyRuleSpec), { default: () => [] }) }),
    { default: () => ({ rules: [] }) }
  ),
  log: Schema.optionalWith(
    Schema.Struct({ level: Schema.optionalWith(Schema.Literal("trace", "debug", "info", "warn", "error", "fatal", "silent"), { default: () => "info" as const }) }),
    { default: () => ({ level: "info" as const }) }
  )
})
export type Config = typeof ConfigSchema.Type

const envOverrides = (env: NodeJS.ProcessEnv, raw: Record<string, any>): Record<string, any> => {
  const out: Record<string, any> = { ...raw, http: { ...(raw.http ?? {}) }, database: { ...(raw.database ?? {}) }, log: { ...(raw.log ?? {}) } }
  if (env.FAULTLINE_HOST) out.http.host = env.FAULTLINE_HOST
  if (env.FAULTLINE_PORT) {
    const n = Number(env.FAULTLINE_PORT)
    out.http.port = Number.isInteger(n) ? n : env.FAULTLINE_PORT
  }
  if (env.FAULTLINE_API_TOKEN) out.http.apiToken = env.FAULTLINE_API_TOKEN
  if (env.FAULTLINE_INGEST_TOKEN) out.http.ingestToken = env.FAULTLINE_INGEST_TOKEN
  if (env.FAULTLINE_DB) out.database.path = env.FAULTLINE_DB
  if (env.FAULTLINE_TAIL) {
    out.tail = env.FAULTLINE_TAIL.split(",").map((p) => p.trim()).filter((p) => p.length > 0).map((path) => ({ path }))
  }
  if (env.FAULTLINE_LOG_LEVEL) out.log.level = env.FAULTLINE_LOG_LEVEL
  return out
}

/**
 * One readable line out of Schema's issues: grouped by field, the noise of optional unions
 * ("Expected undefined") dropped, literal alternatives merged into "expected a | b, got c".
 */
export const formatIssues = (error: ParseResult.ParseError, origin: string): string => {
  const byPath = new Map<string, string[]>()
  for (const i of ParseResult.ArrayFormatter.formatErrorSync(error)) {
    if (i.message.startsWith("Expected undefined")) continue
    const path = i.path.length === 0 ? "(top level)" : i.path.map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`)).join("").replace(/^\./, "")
    byPath.set(path, [...(byPath.get(path) ?? []), i.message.replace(/\s+/g, " ")])
  }
  // a field's own problem says more than "its parent is wrong"
  const paths = [...byPath.keys()].filter((p) => ![...byPath.keys()].some((q) => q !== p && (q.startsWith(p + ".") || q.startsWith(p + "["))))
  const shown = paths.slice(0, 3).map((path) => {
    const msgs = byPath.get(path)!
    const expected = msgs.map((m) => /^Expected (.+), actual (.+)$/.exec(m))
    if (expected.every((m) => m !== null)) {
      return `${path}: expected ${[...new Set(expected.map((m) => m![1]))].join(" | ")}, got ${expected[0]![2]}`
    }
    return `${path}: ${msgs[0]}`
  })
  const more = paths.length > 3 ? ` (and ${paths.length - 3} more)` : ""
  return `invalid configuration in ${origin}: ${shown.join("; ") || "does not match the schema"}${more}`
}

/** Cross-field checks that Schema cannot express locally. */
const validate = (config: Config, origin: string): Either.Either<Config, ConfigError> => {
  const names = new Set<string>()
  for (const [i, r] of config.receivers.entries()) {
    if (names.has(r.name)) return Either.left(new ConfigError({ message: `invalid configuration in ${origin}: receivers[${i}].name: "${r.name}" is used twice` }))
    names.add(r.name)
    if (r.type === "pagerduty" && r.routingKey === null) {
      return Either.left(new ConfigError({ message: `invalid configuration in ${origin}: receivers[${i}].routingKey: a pagerduty receiver needs its integration key` }))
    }
  }
  const check = (list: ReadonlyArray<string>, where: string): ConfigError | null => {
    const bad = list.find((n) => !names.has(n))
    return bad === undefined ? null : new ConfigError({ message: `invalid configuration in ${origin}: ${where}: no receiver is named "${bad}"` })
  }
  const ruleNames = new Set<string>()
  for (const [i, r] of config.classify.rules.entries()) {
    if (ruleNames.has(r.name)) return Either.left(new ConfigError({ message: `invalid configuration in ${origin}: classify.rules[${i}].name: "${r.name}" is used twice` }))
    ruleNames.add(r.name)
    if (r.rateLimitKind !== undefined && r.category !== "rate_limit") {
      return Either.left(new ConfigError({ message: `invalid configuration in ${origin}: classify.rules[${i}].rateLimitKind: only a rule of category rate_limit sets a kind (this one is ${r.category})` }))
    }
  }
  for (const [i, label] of config.tickets.groupBy.entries()) {
    if (config.tickets.groupBy.indexOf(label) !== i) {
      return Either.left(new ConfigError({ message: `invalid configuration in ${origin}: tickets.groupBy[${i}]: "${label}" is named twice` }))
    }
  }
  const errs = [
    check(config.defaultReceivers, "defaultReceivers"),
    check(config.tickets.receivers, "tickets.receivers"),
    ...config.rules.map((r, i) => check(r.receivers ?? [], `rules[${i}].receivers`))
  ].filter((e): e is ConfigError => e !== null)
  if (errs.length > 0) return Either.left(errs[0]!)
  return Either.right(config)
}

/** Decode an already-parsed JSON value (plus env overrides) into a Config. */
export const decodeConfig = (raw: unknown, env: NodeJS.ProcessEnv = {}, origin = "the configuration"): Either.Either<Config, ConfigError> => {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    return Either.left(new ConfigError({ message: `invalid configuration in ${origin}: expected a JSON object at the top level` }))
  }
  const decoded = Schema.decodeUnknownEither(ConfigSchema, { errors: "all", onExcessProperty: "error" })(envOverrides(env, raw as Record<string, any>))
  return Either.isLeft(decoded)
    ? Either.left(new ConfigError({ message: formatIssues(decoded.left, origin) }))
    : validate(decoded.right, origin)
}

/** Read `--config FILE` (or `FAULTLINE_CONFIG`), apply the environment, decode. */
export const loadConfig = (file: string | undefined, env: NodeJS.ProcessEnv = process.env): Either.Either<Config, ConfigError> => {
  const path = file ?? (env.FAULTLINE_CONFIG || undefined)
  if (path === undefined) return decodeConfig({}, env, "the environment")
  let text: string
  try {
    text = fs.readFileSync(path, "utf8")
  } catch (e) {
    return Either.left(new ConfigError({ message: `cannot read config file ${path}: ${(e as NodeJS.ErrnoException).code ?? String(e)}` }))
  }
  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch (e) {
    // Node quotes the file's text (newlines and all): keep the one-line reason
    const reason = (e as Error).message.split("\n")[0]!.replace(/, "[^"]*$/, "").slice(0, 200)
    return Either.left(new ConfigError({ message: `config file ${path} is not valid JSON: ${reason}` }))
  }
  return decodeConfig(raw, env, path)
}

export const secretValue = (s: Redacted.Redacted<string> | null): string | null => (s === null ? null : Redacted.value(s))

export const isLoopbackHost = (host: string): boolean =>
  host === "localhost" || host === "::1" || host === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(host)

/** The config's `classify.rules`, compiled (their patterns were checked when the config loaded). */
export const classifyRulesOf = (config: Config): ClassifyRule[] =>
  config.classify.rules.map((r) => {
    const message = r.match.message === undefined ? undefined : compileUserPattern(r.match.message)
    if (typeof message === "string") throw new Error(`classify.rules: ${r.name}: ${message}`)
    return {
      name: r.name,
      match: { ...r.match, message },
      category: r.category,
      ...(r.rateLimitKind === undefined ? {} : { rateLimitKind: r.rateLimitKind })
    }
  })
