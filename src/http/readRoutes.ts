/** The read API of CONTRACT section 6: events, report, incidents. Query strings decoded with Schema. */
import * as HttpRouter from "@effect/platform/HttpRouter"
import { Effect, Schema } from "effect"
import { categories, rateLimitKinds } from "../classify/Event.js"
import { parseInstantOrAgo } from "../config/duration.js"
import type { EventStore, Report } from "../store/EventStore.js"
import { decodeQuery, HttpFailure, json } from "./respond.js"

const DAY = 86_400_000

/** `since`/`until`: ISO-8601 instants or durations back from now (`15m`, `24h`, `7d`). */
const Instant = Schema.String.pipe(
  Schema.filter((s) => parseInstantOrAgo(s, Date.now()) !== null || `expected an ISO-8601 instant or a duration like 15m, 24h, 7d; got "${s}"`)
)
const IntString = (min: number, max: number) =>
  Schema.NumberFromString.pipe(Schema.int(), Schema.between(min, max))

const Window = {
  since: Schema.optional(Instant),
  until: Schema.optional(Instant)
}

export const EventsQuery = Schema.Struct({
  ...Window,
  category: Schema.optional(Schema.Literal(...categories)),
  rateLimitKind: Schema.optional(Schema.Literal(...rateLimitKinds)),
  model: Schema.optional(Schema.String),
  service: Schema.optional(Schema.String),
  provider: Schema.optional(Schema.String),
  status: Schema.optional(IntString(100, 599)),
  limit: Schema.optional(IntString(1, 1000)),
  cursor: Schema.optional(Schema.String.pipe(Schema.maxLength(512)))
})

export const ReportQuery = Schema.Struct({
  ...Window,
  service: Schema.optional(Schema.String),
  model: Schema.optional(Schema.String)
})

export const IncidentsQuery = Schema.Struct({
  state: Schema.optional(Schema.Literal("active", "quiet")),
  since: Schema.optional(Instant),
  limit: Schema.optional(IntString(1, 1000)),
  cursor: Schema.optional(Schema.String.pipe(Schema.maxLength(512)))
})

/** The window of a query; the default is the last 24h. */
export const windowOf = (q: { since?: string | undefined; until?: string | undefined }, now = Date.now()): { since: number; until: number } => {
  const until = q.until === undefined ? now : parseInstantOrAgo(q.until, now)!
  const since = q.since === undefined ? until - DAY : parseInstantOrAgo(q.since, now)!
  // one rule for every endpoint with a window: it must hold time (`since=0m` is an empty window)
  if (since >= until) throw new HttpFailure({ status: 400, code: "bad_query", message: "the window is empty: since must be before until" })
  return { since, until }
}

const guard = <A>(f: () => A) =>
  Effect.try({
    try: f,
    catch: (e) =>
      e instanceof HttpFailure
        ? e
        : (e as { _tag?: string })._tag === "StoreQueryError"
          ? new HttpFailure({ status: 400, code: "bad_query", message: (e as Error).message })
          : new HttpFailure({ status: 503, code: "not_ready", message: `the database could not answer: ${(e as Error).message}` })
  })

export const readRoutes = (deps: {
  readonly store: EventStore
  /** Fills the report's `alerts` and `tickets` counts from the alert store. */
  readonly completeReport: (r: Report) => Report
}) =>
  HttpRouter.empty.pipe(
    HttpRouter.get(
      "/v1/events",
      Effect.gen(function* () {
        const q = yield* decodeQuery(EventsQuery)
        // the default window is the last 24h, as for every endpoint (CONTRACT section 6)
        const w = yield* guard(() => windowOf(q))
        const page = yield* guard(() =>
          deps.store.listEvents({
            category: q.category,
            rateLimitKind: q.rateLimitKind,
            model: q.model,
            service: q.service,
            provider: q.provider,
            status: q.status,
            since: w.since,
            until: w.until,
            limit: q.limit ?? 100,
            cursor: q.cursor
          })
        )
        return json(page)
      })
    ),
    HttpRouter.get(
      "/v1/report",
      Effect.gen(function* () {
        const q = yield* decodeQuery(ReportQuery)
        const report = yield* guard(() => deps.completeReport(deps.store.report({ ...windowOf(q), service: q.service, model: q.model })))
        return json(report)
      })
    ),
    HttpRouter.get(
      "/v1/incidents",
      Effect.gen(function* () {
        const q = yield* decodeQuery(IncidentsQuery)
        return json(
          yield* guard(() =>
            deps.store.incidents({ state: q.state, since: q.since === undefined ? undefined : windowOf({ since: q.since }).since, limit: q.limit, cursor: q.cursor })
          )
        )
      })
    )
  )
