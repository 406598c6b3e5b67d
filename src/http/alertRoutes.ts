/**
 * Alerting over HTTP (CONTRACT section 6): alerts with their notifications, tickets
 * (acknowledge, resolve), the outbox with its attempts, silences. Auth is applied around this
 * router by the server. Query strings and bodies are decoded with Schema; bad input is a 400
 * `HttpFailure` with the reason.
 */
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Effect, ParseResult, Schema } from "effect"
import { AlertEngine, type Matcher } from "../alert/engine.js"
import { parseDuration } from "../config/duration.js"
import { decodeSeqCursor, encodeCursor } from "../store/cursor.js"
import { decodeQuery, HttpFailure, json, notFound, readJsonBody } from "./respond.js"

const Limit = Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 1000))
/** The `nextCursor` this list handed out (store/cursor.ts), decoded to the seq it names; anything else is a 400. */
const Cursor = (list: string) =>
  Schema.transformOrFail(Schema.String.pipe(Schema.maxLength(512)), Schema.Number, {
    strict: true,
    decode: (s, _, ast) =>
      ParseResult.try({ try: () => decodeSeqCursor(list, s), catch: () => new ParseResult.Type(ast, s, "cursor is not a nextCursor returned by this endpoint") }),
    encode: (n) => ParseResult.succeed(encodeCursor(list, [n]))
  })
const page = (list: string) => ({ limit: Schema.optional(Limit), cursor: Schema.optional(Cursor(list)) })

export const AlertsQuery = Schema.Struct({ state: Schema.optional(Schema.Literal("firing", "resolved")), ...page("alerts") })
export const TicketsQuery = Schema.Struct({ state: Schema.optional(Schema.Literal("open", "acknowledged", "resolved")), ...page("tickets") })
export const NotificationsQuery = Schema.Struct({
  state: Schema.optional(Schema.Literal("pending", "delivered", "dead", "muted")),
  receiver: Schema.optional(Schema.String.pipe(Schema.maxLength(200))),
  ...page("notifications")
})
export const SilencesQuery = Schema.Struct({ state: Schema.optional(Schema.Literal("pending", "active", "expired")), ...page("silences") })

const Instant = Schema.String.pipe(
  Schema.filter((s) => {
    const t = Date.parse(s)
    if (!/^\d{4}-\d{2}-\d{2}T/.test(s) || Number.isNaN(t)) return `expected an ISO-8601 instant, got ${JSON.stringify(s.slice(0, 40))}`
    return t - Date.now() <= SILENCE_MAX_MS || `expected an instant at most a year ahead, got ${JSON.stringify(s.slice(0, 40))}`
  })
)
/** A silence lasts at most a year; instants lie within a year of now (a `Date` can hold them all). */
export const SILENCE_MAX_MS = 366 * 86_400_000
const DurationText = Schema.String.pipe(
  Schema.filter((s) => {
    const ms = parseDuration(s) ?? 0
    if (ms <= 0) return `expected a duration like "30m", "2h", "1d", got ${JSON.stringify(s.slice(0, 40))}`
    return ms <= SILENCE_MAX_MS || `a silence lasts at most a year (366d), got ${JSON.stringify(s.slice(0, 40))}`
  })
)

export const SilenceBody = Schema.Struct({
  matchers: Schema.optional(
    Schema.Array(
      Schema.Struct({
        label: Schema.NonEmptyString,
        value: Schema.String,
        isRegex: Schema.optionalWith(Schema.Boolean, { default: () => false })
      })
    ).pipe(Schema.maxItems(50))
  ),
  labels: Schema.optional(Schema.Record({ key: Schema.NonEmptyString, value: Schema.String })),
  startsAt: Schema.optional(Instant),
  endsAt: Schema.optional(Instant),
  duration: Schema.optional(DurationText),
  comment: Schema.optional(Schema.String.pipe(Schema.maxLength(2000))),
  createdBy: Schema.optional(Schema.String.pipe(Schema.maxLength(200)))
})

const badRequest = (message: string) => new HttpFailure({ status: 400, code: "bad_request", message })

const IdParam = Schema.Struct({ id: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(200)) })
const idParam = HttpRouter.schemaPathParams(IdParam).pipe(Effect.mapError(() => badRequest("missing id")))

const ticketChange = (change: Effect.Effect<import("../ticket/tickets.js").TicketChange>, id: string) =>
  Effect.flatMap(change, (c) => {
    switch (c._tag) {
      case "NotFound":
        return Effect.fail(notFound(`ticket ${id}`))
      case "Conflict":
        return Effect.fail(new HttpFailure({ status: 409, code: "conflict", message: c.message }))
      case "Changed":
        return Effect.succeed(json(c.ticket))
    }
  })

export interface AlertRoutesOptions {
  /** `http.maxBodyBytes`: every write route shares the ingest route's limit. */
  readonly maxBodyBytes: number
}

export const alertRoutes = (opts: AlertRoutesOptions): HttpRouter.HttpRouter<HttpFailure, AlertEngine> => HttpRouter.empty.pipe(
  HttpRouter.get(
    "/v1/alerts",
    Effect.gen(function* () {
      const q = yield* decodeQuery(AlertsQuery)
      const engine = yield* AlertEngine
      const p = yield* engine.listAlerts({ state: q.state, limit: q.limit ?? 100, cursor: q.cursor })
      return json({ alerts: p.items, nextCursor: p.nextCursor })
    })
  ),
  HttpRouter.get(
    "/v1/tickets",
    Effect.gen(function* () {
      const q = yield* decodeQuery(TicketsQuery)
      const engine = yield* AlertEngine
      const p = yield* engine.listTickets({ state: q.state, limit: q.limit ?? 100, cursor: q.cursor })
      return json({ tickets: p.items, nextCursor: p.nextCursor })
    })
  ),
  HttpRouter.post(
    "/v1/tickets/:id/acknowledge",
    Effect.gen(function* () {
      const { id } = yield* idParam
      const engine = yield* AlertEngine
      return yield* ticketChange(engine.acknowledgeTicket(id), id)
    })
  ),
  HttpRouter.post(
    "/v1/tickets/:id/resolve",
    Effect.gen(function* () {
      const { id } = yield* idParam
      const engine = yield* AlertEngine
      return yield* ticketChange(engine.resolveTicket(id), id)
    })
  ),
  HttpRouter.get(
    "/v1/notifications",
    Effect.gen(function* () {
      const q = yield* decodeQuery(NotificationsQuery)
      const engine = yield* AlertEngine
      const p = yield* engine.listNotifications({ state: q.state, receiver: q.receiver, limit: q.limit ?? 100, cursor: q.cursor })
      return json({ notifications: p.items, nextCursor: p.nextCursor })
    })
  ),
  HttpRouter.post(
    "/v1/silences",
    Effect.gen(function* () {
      const body = yield* readJsonBody(SilenceBody, opts.maxBodyBytes)
      const matchers: Array<Matcher> = [
        ...(body.matchers ?? []).map((m) => ({ label: m.label, value: m.value, isRegex: m.isRegex })),
        ...Object.entries(body.labels ?? {}).map(([label, value]) => ({ label, value, isRegex: false }))
      ]
      if (matchers.length === 0) return yield* Effect.fail(badRequest("give matchers ([{label, value, isRegex?}]) or labels ({label: value}): a silence needs at least one"))
      if ((body.endsAt === undefined) === (body.duration === undefined)) return yield* Effect.fail(badRequest("give exactly one of endsAt (ISO-8601) and duration (e.g. \"2h\")"))
      const engine = yield* AlertEngine
      const silence = yield* engine
        .createSilence({
          matchers,
          startsAt: body.startsAt === undefined ? null : Date.parse(body.startsAt),
          endsAt: body.endsAt === undefined ? null : Date.parse(body.endsAt),
          durationMs: body.duration === undefined ? null : parseDuration(body.duration),
          comment: body.comment ?? null,
          createdBy: body.createdBy ?? null
        })
        .pipe(Effect.mapError((e) => badRequest(e.message)))
      return json(silence, 201)
    })
  ),
  HttpRouter.get(
    "/v1/silences",
    Effect.gen(function* () {
      const q = yield* decodeQuery(SilencesQuery)
      const engine = yield* AlertEngine
      const p = yield* engine.listSilences({ state: q.state, limit: q.limit ?? 100, cursor: q.cursor })
      return json({ silences: p.items, nextCursor: p.nextCursor })
    })
  ),
  HttpRouter.del(
    "/v1/silences/:id",
    Effect.gen(function* () {
      const { id } = yield* idParam
      const engine = yield* AlertEngine
      const silence = yield* engine.expireSilence(id)
      return silence === null ? yield* Effect.fail(notFound(`silence ${id}`)) : json(silence)
    })
  )
)
