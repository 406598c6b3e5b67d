/**
 * The seed's diagnostic procedure, automated (CONTRACT section 8): for one event, the status,
 * code and message; the same chat completion request as a `curl -i` command (key replaced by
 * `<API_KEY>`); the same request with another model; whether the failure also hits other
 * models; the proxy hint for transport failures and non-JSON bodies.
 *
 * `buildDiagnosis` is pure; `diagnosisContext` asks the stored events (event_rows by series) what it needs.
 *
 * "A model that succeeded recently in the same service" is the healthiest other model by the
 * calls counted in the hour up to the event (successes seen, the lowest failure ratio). Where no
 * call was counted (only failures are seen), it is approximated: a model seen in the same service within 24h before the event that, within an
 * hour of the event, had no failure of the event's category, and never a `model_not_found`
 * (so it exists). Lacking one: `<VALID_MODEL>`.
 * "Other models affected": other models of the same service with a failure of the same
 * category, rateLimitKind, status and code within an hour of the event (the fingerprint
 * contains the model, so it cannot be compared as is).
 */
import type BetterSqlite3 from "better-sqlite3"
import { Data, Effect } from "effect"
import { EventStore, percent } from "../store/EventStore.js"
import { type FailureEvent, instantMs } from "../classify/Event.js"
import { Database, statement } from "../store/Database.js"
import { CallCounts, type ModelHealth } from "../store/CallCounts.js"

export interface Diagnosis {
  readonly summary: string
  readonly curl: string
  readonly curlOtherModel: string
  readonly otherModelsAffected: ReadonlyArray<string>
  readonly hints: ReadonlyArray<string>
}

export const PROXY_HINT = "If a proxy is enabled, disable it and retry."
export const BASE_URL_PLACEHOLDER = "<BASE_URL>"
export const VALID_MODEL_PLACEHOLDER = "<VALID_MODEL>"

const MINUTE = 60_000
const HOUR = 3_600_000
const DAY = 24 * HOUR

/** The base URL of the API when the event's endpoint is a full URL (credentials and query dropped). */
export const baseUrlOf = (endpoint: string | null): string => {
  if (endpoint === null || !/^https?:\/\//i.test(endpoint)) return BASE_URL_PLACEHOLDER
  try {
    const u = new URL(endpoint)
    const at = u.pathname.search(/\/v1(\/|$)/)
    const prefix = at >= 0 ? u.pathname.slice(0, at) : ""
    return `${u.origin}${prefix.replace(/\/+$/, "")}`
  } catch {
    return BASE_URL_PLACEHOLDER
  }
}

/** A POSIX shell single-quoted word. */
export const shellQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`

/** The seed's chat completion request as a `curl -i` command that prints the response headers. */
export const curlCommand = (baseUrl: string, model: string, stream: boolean): string => {
  const body: Record<string, unknown> = { model, messages: [{ role: "user", content: "ping" }], max_tokens: 16 }
  if (stream) body.stream = true
  return [
    `curl -i${stream ? " -N" : ""} -X POST ${shellQuote(`${baseUrl}/v1/chat/completions`)}`,
    `-H 'accept: application/json'`,
    `-H 'authorization: Bearer <API_KEY>'`,
    `-H 'content-type: application/json'`,
    `-d ${shellQuote(JSON.stringify(body))}`
  ].join(" \\\n  ")
}

export const summaryOf = (e: FailureEvent): string => {
  const status = e.status === null ? "no HTTP status (the call got no answer from the service)" : `HTTP ${e.status}`
  const code = e.code === null ? "no code" : `code ${e.code}`
  const message = e.message === null ? "no message" : `message ${JSON.stringify(e.message)}`
  return `${status}, ${code}, ${message}`
}

export interface DiagnosisContext {
  /** A model that worked recently in the same service, or null. */
  readonly otherModel: string | null
  readonly otherModelsAffected: ReadonlyArray<string>
  /** The service's models in the hour up to the event (CallCounts.health); empty without calls. */
  readonly modelHealth?: ReadonlyArray<ModelHealth>
}

/**
 * The model the second curl should try: the healthiest other model of the service by the calls
 * counted (successes seen, the lowest failure ratio, then the most calls), else the one the
 * failures suggest (`otherModel`).
 */
export const healthiestOther = (health: ReadonlyArray<ModelHealth>, model: string | null): string | null => {
  const candidates = health.filter((h) => h.model !== null && h.model !== model && h.calls > h.failed)
  candidates.sort((a, b) => (a.failureRatio ?? 1) - (b.failureRatio ?? 1) || b.calls - a.calls || a.model!.localeCompare(b.model!))
  return candidates[0]?.model ?? null
}

/** The event's model first, then the others (by calls, as CallCounts.health orders them). */
export const orderedHealth = (health: ReadonlyArray<ModelHealth>, model: string | null): ModelHealth[] => [
  ...health.filter((h) => h.model === model),
  ...health.filter((h) => h.model !== model)
]

/** "12 of 140 calls failed (8.6%)". */
const healthText = (h: ModelHealth): string =>
  `${h.model ?? "(no model)"}: ${h.failed} of ${h.calls} calls failed (${h.failureRatio === null ? "-" : percent(h.failureRatio)})`

/** The model-health sentence of a summary: the event's model, then the service's others. */
const healthSummary = (health: ReadonlyArray<ModelHealth>, model: string | null): string => {
  if (health.length === 0) return ""
  const own = health.find((h) => h.model === model)
  const others = health.filter((h) => h !== own)
  const parts = [own === undefined ? null : `this model ${healthText(own)}`, others.length === 0 ? null : `other models ${others.slice(0, 5).map(healthText).join(", ")}`]
  return `; in the hour before: ${parts.filter((p) => p !== null).join("; ")}`
}

export const buildDiagnosis = (e: FailureEvent, ctx: DiagnosisContext): Diagnosis => {
  const base = baseUrlOf(e.endpoint)
  const stream = e.stream === true
  const hints: Array<string> = [e.action]
  if ((e.category === "transport" || e.bodyNotJson) && !hints.includes(PROXY_HINT)) hints.push(PROXY_HINT)
  const health = ctx.modelHealth ?? []
  return {
    summary: `${summaryOf(e)}${healthSummary(orderedHealth(health, e.model), e.model)}`,
    curl: curlCommand(base, e.model ?? "<MODEL>", stream),
    curlOtherModel: curlCommand(base, healthiestOther(health, e.model) ?? ctx.otherModel ?? VALID_MODEL_PLACEHOLDER, stream),
    otherModelsAffected: ctx.otherModelsAffected,
    hints
  }
}

/** At most this many names are spelled out in a ticket's summary (`otherModelsAffected` lists them all). */
const SUMMARY_NAMES = 10

const nameList = (names: ReadonlyArray<string>): string =>
  names.length <= SUMMARY_NAMES ? names.join(", ") : `${names.slice(0, SUMMARY_NAMES).join(", ")} and ${names.length - SUMMARY_NAMES} more`

/**
 * A ticket's diagnosis: the diagnosis of its event (`base`, about `eventModel`) completed with
 * the models and services the ticket's signature was seen from (most frequent first).
 * `otherModelsAffected`: the ticket's other models, then those the event's own diagnosis found in
 * the `events` table; the summary says which models are affected and in which services.
 */
export const ticketDiagnosis = (
  base: Diagnosis,
  eventModel: string | null,
  models: ReadonlyArray<string>,
  services: ReadonlyArray<string>
): Diagnosis => {
  const affected = [...new Set([...models, ...(eventModel === null ? [] : [eventModel]), ...base.otherModelsAffected])]
  const others = affected.filter((m) => m !== eventModel)
  const modelsPart =
    affected.length === 0
      ? ""
      : affected.length === 1
        ? `; models affected: only ${affected[0]} so far (the failure may depend on the model)`
        : `; ${affected.length} models affected: ${nameList(affected)} (the failure does not depend on the model)`
  const servicesPart = services.length === 0 ? "" : `; service${services.length === 1 ? "" : "s"}: ${nameList(services)}`
  return { ...base, summary: `${base.summary}${modelsPart}${servicesPart}`, otherModelsAffected: others }
}

const at = (e: FailureEvent): number => {
  const t = instantMs(e.occurredAt)
  return Number.isNaN(t) ? instantMs(e.ingestedAt) : t
}

/** What the stored events say around the event (see the header for the approximations). */
export const diagnosisContext = (db: BetterSqlite3.Database, e: FailureEvent): DiagnosisContext => {
  const t = at(e)
  const params = {
    category: e.category,
    kind: e.rateLimitKind,
    status: e.status,
    code: e.code,
    service: e.service,
    model: e.model,
    hourAgo: t - HOUR,
    dayAgo: t - DAY,
    to: t + HOUR
  }
  // The labels are on the (few) series: each matching series' events are an index range of
  // event_rows (series, occurred_at); CROSS JOIN keeps SQLite from scanning the time range first.
  const affected = statement(
    db,
    `SELECT s.model FROM series s CROSS JOIN event_rows e ON e.series = s.id JOIN event_variants v ON v.id = e.variant
     WHERE s.category = @category AND s.rate_limit_kind IS @kind AND s.status IS @status AND s.service IS @service
       AND s.model IS NOT NULL AND s.model IS NOT @model
       AND e.occurred_at BETWEEN @hourAgo AND @to AND v.code IS @code
     GROUP BY s.model ORDER BY MAX(e.occurred_at) DESC LIMIT 20`
  )
    .pluck()
    .all(params) as Array<string>
  const other = statement(
    db,
    `SELECT s.model FROM series s CROSS JOIN event_rows e ON e.series = s.id
     WHERE s.service IS @service AND s.model IS NOT NULL AND s.model IS NOT @model
       AND e.occurred_at BETWEEN @dayAgo AND @to
     GROUP BY s.model
     HAVING SUM(s.category = 'model_not_found') = 0 AND SUM(s.category = @category AND e.occurred_at >= @hourAgo) = 0
     ORDER BY MAX(e.occurred_at) DESC LIMIT 1`
  )
    .pluck()
    .get({ service: params.service, model: params.model, category: params.category, dayAgo: params.dayAgo, hourAgo: params.hourAgo, to: params.to }) as
    | string
    | undefined
  return { otherModel: other ?? null, otherModelsAffected: affected, modelHealth: new CallCounts(db).health(e.service, t - HOUR, t + MINUTE) }
}

export const diagnoseEvent = (db: BetterSqlite3.Database, e: FailureEvent): Diagnosis => buildDiagnosis(e, diagnosisContext(db, e))

/** The diagnosis of an event with the model health behind it (`faultline diagnose`). */
export const diagnosedEvent = (db: BetterSqlite3.Database, e: FailureEvent): DiagnosedEvent => {
  const ctx = diagnosisContext(db, e)
  return { event: e, diagnosis: buildDiagnosis(e, ctx), modelHealth: orderedHealth(ctx.modelHealth ?? [], e.model) }
}

export class DiagnoseError extends Data.TaggedError("DiagnoseError")<{
  readonly reason: "not_found"
  readonly message: string
}> {}

export interface DiagnosedEvent {
  readonly event: FailureEvent
  readonly diagnosis: Diagnosis
  /**
   * How the models of the event's service did in the hour up to the event (calls counted, failed
   * and successful), the event's model first; empty when no call of the service was counted.
   * The diagnosis's summary says the same in words (a ticket's diagnosis keeps the contract's keys).
   */
  readonly modelHealth?: ReadonlyArray<ModelHealth>
}

/** `faultline diagnose EVENT_ID`: the diagnosis of a stored event. */
export const diagnose = (eventId: string): Effect.Effect<DiagnosedEvent, DiagnoseError, Database> =>
  Effect.flatMap(Database, ({ db }) =>
    Effect.suspend(() => {
      const event = new EventStore(db).getEvent(eventId)
      return event === null
        ? Effect.fail(new DiagnoseError({ reason: "not_found", message: `no stored event has the id ${JSON.stringify(eventId)}` }))
        : Effect.succeed(diagnosedEvent(db, event))
    })
  )

/** The diagnosis as readable text (the JSON form is `JSON.stringify(diagnosed)`). */
export const formatDiagnosis = ({ event: e, diagnosis: d, modelHealth = [] }: DiagnosedEvent): string => {
  const where = [e.service === null ? null : `service ${e.service}`, e.model === null ? null : `model ${e.model}`].filter((x) => x !== null)
  const indent = (s: string) => s.split("\n").map((l) => `  ${l}`).join("\n")
  const affected =
    d.otherModelsAffected.length === 0
      ? "none: within an hour of this event only this model failed this way (the problem may depend on the model)"
      : `${d.otherModelsAffected.join(", ")} (the problem does not depend on the model)`
  return [
    `Event ${e.id} at ${e.occurredAt}: ${e.category}${e.rateLimitKind === null ? "" : ` (${e.rateLimitKind})`}${where.length ? `, ${where.join(", ")}` : ""}`,
    ``,
    `1. Status, code and message`,
    indent(d.summary),
    ``,
    `2. Reproduce the request (prints the response headers; set <API_KEY>${d.curl.includes(BASE_URL_PLACEHOLDER) ? " and <BASE_URL>" : ""})`,
    indent(d.curl),
    ``,
    `3. The same request with another model`,
    indent(d.curlOtherModel),
    `   Other models failing the same way: ${affected}`,
    ...(modelHealth.length === 0
      ? []
      : [`   Calls in the hour before the event (${e.service === null ? "events without a service" : `service ${e.service}`}):`, ...modelHealth.map((h) => `     ${healthText(h)}`)]),
    ``,
    `4. Hints`,
    ...d.hints.map((h) => `  - ${h}`),
    ``
  ].join("\n")
}
