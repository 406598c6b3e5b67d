/**
 * The detail pages behind the report page's links (page.ts renders them): `GET
 * /incidents/<fingerprint>` and `GET /tickets/<id>` (which links to the incident of its
 * diagnosed event). Same auth as `GET /` (Server.ts).
 *
 * The store has no lookup of one incident by fingerprint and no fingerprint filter on events:
 * the incident is found in the incidents list (most recently seen first, so a top incident of
 * the report is on the first page), and its events are the events of its category, kind,
 * status, model and service (the fields the fingerprint is made of, indexed by category and
 * model) kept when their fingerprint matches, scanning a bounded number of pages.
 */
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect } from "effect"
import type { FailureEvent } from "../classify/Event.js"
import { Database } from "../store/Database.js"
import { type EventStore, EventStoreService, type Incident } from "../store/EventStore.js"
import { getTicket } from "../ticket/tickets.js"
import { pageWindowOf, renderIncidentPage, renderMissingPage, renderTicketPage } from "./page.js"
import { HttpFailure } from "./respond.js"

/** Events shown on an incident's page. */
export const INCIDENT_EVENTS = 50
const PAGE = 1_000
/** Bounds of the scans (incidents: 100k most recent; events: 20k of the same fields). */
const INCIDENT_PAGES = 100
const EVENT_PAGES = 20

const FINGERPRINT = /^[0-9a-f]{16}$/

export const findIncident = (store: EventStore, fingerprint: string): Incident | null => {
  if (!FINGERPRINT.test(fingerprint)) return null
  let cursor: string | undefined
  for (let i = 0; i < INCIDENT_PAGES; i++) {
    const page = store.incidents({ limit: PAGE, cursor })
    const hit = page.incidents.find((x) => x.fingerprint === fingerprint)
    if (hit !== undefined) return hit
    if (page.nextCursor === null) return null
    cursor = page.nextCursor
  }
  return null
}

/** The incident's most recent events, newest first, at most `limit`. */
export const eventsOfIncident = (store: EventStore, incident: Incident, limit: number): FailureEvent[] => {
  const out: FailureEvent[] = []
  let cursor: string | undefined
  for (let i = 0; i < EVENT_PAGES && out.length < limit; i++) {
    const page = store.listEvents({
      category: incident.category,
      rateLimitKind: incident.rateLimitKind ?? undefined,
      status: incident.status ?? undefined,
      model: incident.model ?? undefined,
      service: incident.service ?? undefined,
      limit: PAGE,
      cursor
    })
    for (const e of page.events) if (e.fingerprint === incident.fingerprint && out.length < limit) out.push(e)
    if (page.nextCursor === null) break
    cursor = page.nextCursor
  }
  return out
}

const unavailable = (e: unknown) =>
  new HttpFailure({ status: 503, code: "not_ready", message: `the database could not answer: ${(e as Error)?.message ?? String(e)}` })

const windowParam = Effect.map(HttpServerRequest.HttpServerRequest, (req) => pageWindowOf(new URL(req.url, "http://x").searchParams.get("window")))

const param = (name: string) => Effect.map(HttpRouter.params, (p) => p[name] ?? "")

const html = (body: string, status = 200) => HttpServerResponse.html(body).pipe(HttpServerResponse.setStatus(status))

export const pageRoutes = HttpRouter.empty.pipe(
  HttpRouter.get(
    "/incidents/:fingerprint",
    Effect.gen(function* () {
      const fingerprint = yield* param("fingerprint")
      const window = yield* windowParam
      const store = yield* EventStoreService
      const found = yield* Effect.try({
        try: () => {
          const incident = findIncident(store, fingerprint)
          return incident === null ? null : { incident, events: eventsOfIncident(store, incident, INCIDENT_EVENTS) }
        },
        catch: unavailable
      })
      if (found === null) return html(renderMissingPage(`incident ${fingerprint}`, window), 404)
      return html(renderIncidentPage({ ...found, limit: INCIDENT_EVENTS, window }))
    })
  ),
  HttpRouter.get(
    "/tickets/:id",
    Effect.gen(function* () {
      const id = yield* param("id")
      const window = yield* windowParam
      const { db } = yield* Database
      const store = yield* EventStoreService
      const found = yield* Effect.try({
        try: () => {
          const ticket = id.length === 0 || id.length > 200 ? null : getTicket(db, id)
          return ticket === null ? null : { ticket, incident: store.getEvent(ticket.eventId)?.fingerprint ?? null }
        },
        catch: unavailable
      })
      if (found === null) return html(renderMissingPage(`ticket ${id}`, window), 404)
      return html(renderTicketPage(found.ticket, found.incident, window))
    })
  )
)
