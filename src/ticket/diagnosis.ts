/**
 * The seed's diagnostic procedure, automated (CONTRACT section 8): for one event, the status,
 * code and message; the same chat completion request as a `curl -i` command (key replaced by
 * `<API_KEY>`); the same request with another model; whether the failure also hits other
 * models; the proxy hint for transport failures and non-JSON bodies.
 *
 * `buildDiagnosis` is pure; `diagnosisContext` asks the stored events (event_rows by series) what it needs.
 *
 * We only ever see failures, so "a model that succeeded recently in the same service" is
 * approximated: a model seen in the same service within 24h before the event that, within an
 * hour of the event, had no failure of the event's category, and never a `model_not_found`
 * (so it exists). Lacking one: `<VALID_MODEL>`.
 * "Other models affected": other models of the same service with a failure of the same
 * category, rateLimitKind, status and code within an hour of the event (the fingerprint
 * contains the model, so it cannot be compared as is).
 */
import type BetterSqlite3 from "better-sqlite3"
import { Data, Effect } from "effect"
import { EventStore } from "../store/EventStore.js"
import { type FailureEvent, instantMs } from "../classify/Event.js"
import { Database, statement } from "../store/Database.js"

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
}

export const buildDiagnosis = (e: FailureEvent, ctx: DiagnosisContext): Diagnosis => {
  const base = baseUrlOf(e.endpoint)
  const stream = e.stream === true
  const hints: Array<string> = [e.action]
  if ((e.category === "transport" || e.bodyNotJson) && !hints.includes(PROXY_HINT)) hints.push(PROXY_HINT)
  return {
    summary: summaryOf(e),
    curl: curlCommand(base, e.model ?? "<MODEL>", stream),
    curlOtherModel: curlCommand(base, ctx.otherModel ?? VALID_MODEL_PLACEHOLDER, stream),
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
  return { otherModel: other ?? null, otherModelsAffected: affected }
}

export const diagnoseEvent = (db: BetterSqlite3.Database, e: FailureEvent): Diagnosis => buildDiagnosis(e, diagnosisContext(db, e))

export class DiagnoseError extends Data.TaggedError("DiagnoseError")<{
  readonly reason: "not_found"
  readonly message: string
}> {}

export interface DiagnosedEvent {
  readonly event: FailureEvent
  readonly diagnosis: Diagnosis
}

/** `faultline diagnose EVENT_ID`: the diagnosis of a stored event. */
export const diagnose = (eventId: string): Effect.Effect<DiagnosedEvent, DiagnoseError, Database> =>
  Effect.flatMap(Database, ({ db }) =>
    Effect.suspend(() => {
      const event = new EventStore(db).getEvent(eventId)
      return event === null
        ? Effect.fail(new DiagnoseError({ reason: "not_found", message: `no stored event has the id ${JSON.stringify(eventId)}` }))
        : Effect.succeed({ event, diagnosis: diagnoseEvent(db, event) })
    })
  )

/** The diagnosis as readable text (the JSON form is `JSON.stringify(diagnosed)`). */
export const formatDiagnosis = ({ event: e, diagnosis: d }: DiagnosedEvent): string => {
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
    ``,
    `4. Hints`,
    ...d.hints.map((h) => `  - ${h}`),
    ``
  ].join("\n")
}
